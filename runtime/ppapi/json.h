/*
 * Messages as text: strings, and JSON (PNACL_MESSAGES=json), both ways.
 */
#ifndef PA_JSON_H
#define PA_JSON_H

#include "var.h"

static int pa_json; /* PNACL_MESSAGES=json */

struct pa_text {
    u8 *p;
    u32 len, cap;
    int failed;
};

static void text_put(struct pa_text *t, const void *s, u32 n) {
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        u32 cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1) {
            if (cap > PA_MAX_LINE) {
                t->failed = 1;
                return;
            }
            cap *= 2;
        }
        u8 *q = pa_alloc(cap);
        if (!q) {
            t->failed = 1;
            return;
        }
        if (t->p) copy(q, t->p, t->len);
        pa_release_block(t->p);
        t->p = q;
        t->cap = cap;
    }
    copy(t->p + t->len, s, n);
    t->len += n;
}

static void text_str(struct pa_text *t, const char *s) { text_put(t, s, (u32)slen(s)); }

static void text_uint(struct pa_text *t, u64 v) {
    char b[24];
    int i = 24;
    do b[--i] = (char)('0' + v % 10); while ((v /= 10) != 0);
    text_put(t, b + i, (u32)(24 - i));
}

static void text_int(struct pa_text *t, i64 v) {
    if (v < 0) {
        text_put(t, "-", 1);
        text_uint(t, (u64)0 - (u64)v);
    } else {
        text_uint(t, (u64)v);
    }
}

/* Numbers, exactly: a JSON number reads as the double nearest to it, and a double writes
   as the shortest decimal that reads back as the same double (as V8's JSON did). Both
   work on big integers, so no digit is lost to floating-point arithmetic. */

#define PA_BIG_WORDS 160 /* 5120 bits: 10^1130 times 2^64, and 2^53 times 5^1074, fit */
#define PA_MAX_DIGITS 800 /* significant digits kept (767 decide any double) */

struct pa_big {
    u32 n; /* words in use; w[n - 1] != 0 unless n == 0 */
    u32 w[PA_BIG_WORDS];
};

static void big_copy(struct pa_big *to, const struct pa_big *from) {
    to->n = from->n;
    copy(to->w, from->w, from->n * sizeof(u32));
}

static void big_set(struct pa_big *b, u64 v) {
    b->n = 0;
    while (v) b->w[b->n++] = (u32)v, v >>= 32;
}

static void big_mul_add(struct pa_big *b, u32 m, u32 a) {
    u64 carry = a;
    for (u32 i = 0; i < b->n; i++) {
        u64 t = (u64)b->w[i] * m + carry;
        b->w[i] = (u32)t;
        carry = t >> 32;
    }
    if (carry && b->n < PA_BIG_WORDS) b->w[b->n++] = (u32)carry;
}

static void big_mul_pow(struct pa_big *b, u32 base, u32 e) {
    /* base^13 < 2^32 for base 5 and 10 (10^9 used for 10) */
    u32 step = base == 10 ? 9 : 13, chunk = base == 10 ? 1000000000u : 1220703125u;
    for (; e >= step; e -= step) big_mul_add(b, chunk, 0);
    u32 m = 1;
    while (e--) m *= base;
    if (m != 1) big_mul_add(b, m, 0);
}

static u32 big_bits(const struct pa_big *b) {
    return b->n ? 32 * b->n - (u32)__builtin_clz(b->w[b->n - 1]) : 0;
}

static void big_shl(struct pa_big *b, u32 k) {
    if (!b->n) return;
    u32 words = k / 32, bits = k % 32;
    u32 n = b->n + words + 1;
    if (n > PA_BIG_WORDS) n = PA_BIG_WORDS; /* callers keep within the bound */
    for (u32 i = n; i-- > 0;) {
        u32 hi = i >= words && i - words < b->n ? b->w[i - words] : 0;
        u32 lo = i >= words + 1 && i - words - 1 < b->n ? b->w[i - words - 1] : 0;
        b->w[i] = bits ? (hi << bits) | (lo >> (32 - bits)) : hi;
    }
    b->n = n;
    while (b->n && !b->w[b->n - 1]) b->n--;
}

static int big_cmp(const struct pa_big *a, const struct pa_big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (u32 i = a->n; i-- > 0;)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static void big_sub(struct pa_big *a, const struct pa_big *b) { /* a >= b */
    i64 borrow = 0;
    for (u32 i = 0; i < a->n; i++) {
        i64 t = (i64)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
        borrow = t < 0;
        a->w[i] = (u32)(t + (borrow << 32));
    }
    while (a->n && !a->w[a->n - 1]) a->n--;
}

/* The double nearest to q * 2^e2 (q's top bit set; `sticky`: something below q). */
static double pa_make_double(u64 q, int sticky, int e2) {
    int shift = -1074 - e2 > 11 ? -1074 - e2 : 11;
    if (shift > 64) return 0;
    u64 keep = shift == 64 ? 0 : q >> shift;
    u64 rem = shift == 64 ? q : q & (((u64)1 << shift) - 1);
    u64 half = (u64)1 << (shift - 1);
    if (rem > half || (rem == half && (sticky || (keep & 1)))) keep++;
    int e = e2 + shift;
    if (keep == (u64)1 << 53) keep >>= 1, e++;
    u64 bits;
    if (keep >= (u64)1 << 52) {
        int be = e + 52 + 1023;
        if (be >= 2047) bits = (u64)2047 << 52;
        else bits = ((u64)be << 52) | (keep & (((u64)1 << 52) - 1));
    } else {
        bits = keep; /* subnormal (or zero): e is -1074 */
    }
    double d;
    __builtin_memcpy(&d, &bits, 8);
    return d;
}

/* The double nearest to the decimal digits[0..nd) (no leading zero) times 10^exp10;
   `sticky`: nonzero digits were dropped after them. */
static double pa_decimal_to_double(const u8 *digits, u32 nd, int exp10, int sticky) {
    if (!nd) return 0;
    if (nd <= 15 && exp10 >= -22 && exp10 <= 22 && !sticky) {
        /* Clinger's fast path: the digits and 10^|exp10| are exact doubles, so one
           correctly rounded operation gives the nearest double. */
        static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        i64 v = 0;
        for (u32 i = 0; i < nd; i++) v = v * 10 + digits[i];
        return exp10 < 0 ? (double)v / pow10[-exp10] : (double)v * pow10[exp10];
    }
    if ((int)nd + exp10 > 310) return __builtin_inf();
    if ((int)nd + exp10 < -330) return 0;
    struct pa_big num, den;
    big_set(&num, 0);
    for (u32 i = 0; i < nd; i++) {
        if (!num.n) big_set(&num, digits[i]);
        else big_mul_add(&num, 10, digits[i]);
    }
    if (exp10 >= 0) {
        big_mul_pow(&num, 10, (u32)exp10);
        u32 bits = big_bits(&num);
        if (bits <= 64) {
            u64 v = num.w[0] | (num.n > 1 ? (u64)num.w[1] << 32 : 0);
            return pa_make_double(v << (64 - bits), sticky, (int)bits - 64);
        }
        /* The top 64 bits, and whether anything is below them. */
        u64 q = 0;
        for (u32 i = 0; i < 64; i++) {
            u32 bit = bits - 1 - i;
            q = q << 1 | ((num.w[bit / 32] >> (bit % 32)) & 1);
        }
        int below = sticky;
        for (u32 bit = 0; bit < bits - 64 && !below; bit++) below = (num.w[bit / 32] >> (bit % 32)) & 1;
        return pa_make_double(q, below, (int)bits - 64);
    }
    big_set(&den, 1);
    big_mul_pow(&den, 10, (u32)-exp10);
    /* q = floor(num * 2^k / den) with 2^63 <= q < 2^64 */
    int k = 64 + (int)big_bits(&den) - (int)big_bits(&num);
    if (k > 0) big_shl(&num, (u32)k);
    else big_shl(&den, (u32)-k);
    /* num/den is now in [2^63, 2^65): halve den once if needed so it is below 2^64 */
    struct pa_big top;
    big_copy(&top, &den);
    big_shl(&top, 64);
    if (big_cmp(&num, &top) >= 0) {
        big_shl(&den, 1);
        k--;
    }
    u64 q = 0;
    for (int i = 63; i >= 0; i--) {
        struct pa_big t;
        big_copy(&t, &den);
        big_shl(&t, (u32)i);
        if (big_cmp(&num, &t) >= 0) {
            big_sub(&num, &t);
            q |= (u64)1 << i;
        }
    }
    if (!(q >> 63)) { /* num/den was below 2^63: one more bit */
        big_shl(&num, 1);
        k++;
        q <<= 1;
        if (big_cmp(&num, &den) >= 0) big_sub(&num, &den), q |= 1;
    }
    return pa_make_double(q, sticky || num.n != 0, -k);
}

/* The exact decimal digits of finite d > 0 (at most 800 of them, then `*more` set),
   with *exp10 such that d = 0.DIGITS x 10^exp10. */
static u32 pa_double_digits(double d, u8 *out, int *exp10, int *more) {
    u64 bits;
    __builtin_memcpy(&bits, &d, 8);
    int be = (int)(bits >> 52) & 2047;
    u64 m = bits & (((u64)1 << 52) - 1);
    int e2 = be ? be - 1075 : -1074;
    if (be) m |= (u64)1 << 52;
    struct pa_big b;
    big_set(&b, m);
    int point = 0; /* d = b x 10^-point */
    if (e2 >= 0) big_shl(&b, (u32)e2);
    else big_mul_pow(&b, 5, (u32)-e2), point = -e2;
    /* Digits, nine at a time from the bottom, by division by 10^9. */
    static const u32 size = 9 * PA_BIG_WORDS * 32 / 29 + 9;
    u8 rev[9 * PA_BIG_WORDS * 32 / 29 + 9];
    u32 nr = 0;
    while (b.n) {
        u64 r = 0;
        for (u32 i = b.n; i-- > 0;) {
            u64 cur = r << 32 | b.w[i];
            b.w[i] = (u32)(cur / 1000000000u);
            r = cur % 1000000000u;
        }
        while (b.n && !b.w[b.n - 1]) b.n--;
        for (int j = 0; j < 9 && nr < size; j++) rev[nr++] = (u8)(r % 10), r /= 10;
    }
    while (nr && !rev[nr - 1]) nr--;
    u32 lead_zeros = 0; /* trailing zeros of the number */
    while (lead_zeros < nr && !rev[lead_zeros]) lead_zeros++;
    *exp10 = (int)nr - point;
    u32 n = 0;
    *more = 0;
    for (u32 i = nr; i-- > lead_zeros;) {
        if (n < PA_MAX_DIGITS) out[n++] = rev[i];
        else *more = 1;
    }
    return n;
}

/* A double as JSON, as JavaScript writes a number: the shortest decimal that reads back as
   the same double; integral values within 2^53 as integers (with ".0" in JSON messages,
   to say the var was a DOUBLE); NaN and infinities as null (JSON has none, as
   JSON.stringify says). */
static void text_double(struct pa_text *t, double d) {
    if (d != d || d - d != 0) {
        text_str(t, "null");
        return;
    }
    if (d < 9007199254740992.0 && d > -9007199254740992.0 && d == (double)(i64)d) {
        if (d == 0 && 1 / d < 0) text_put(t, "-", 1);
        text_int(t, (i64)d);
        if (pa_json) text_str(t, ".0");
        return;
    }
    if (d < 0) {
        text_put(t, "-", 1);
        d = -d;
    }
    u8 exact[PA_MAX_DIGITS], c[18];
    int n10, more;
    u32 ne = pa_double_digits(d, exact, &n10, &more);
    u32 p = 1;
    int n = n10;
    for (;; p++) {
        n = n10;
        u32 k = ne < p ? ne : p;
        copy(c, exact, k);
        if (ne > p) {
            int up = exact[p] > 5 || (exact[p] == 5 && (more || (c[p - 1] & 1)));
            for (u32 i = p + 1; exact[p] == 5 && !up && i < ne; i++) up = exact[i] != 0;
            for (u32 i = k; up && i-- > 0;) {
                if (c[i] < 9) {
                    c[i]++;
                    up = 0;
                } else {
                    c[i] = 0;
                }
            }
            if (up) { /* 99..9 became 100..0 */
                c[0] = 1;
                for (u32 i = 1; i < k; i++) c[i] = 0;
                n++;
            }
        }
        while (k > 1 && !c[k - 1]) k--;
        if (p >= 17 || pa_decimal_to_double(c, k, n - (int)k, 0) == d) {
            p = k;
            break;
        }
    }
    for (u32 i = 0; i < p; i++) c[i] = (u8)('0' + c[i]);
    if ((int)p <= n && n <= 21) {
        text_put(t, c, p);
        for (int i = (int)p; i < n; i++) text_put(t, "0", 1);
    } else if (0 < n && n <= 21) {
        text_put(t, c, (u32)n);
        text_put(t, ".", 1);
        text_put(t, c + n, p - (u32)n);
    } else if (-6 < n && n <= 0) {
        text_put(t, "0.", 2);
        for (int i = n; i < 0; i++) text_put(t, "0", 1);
        text_put(t, c, p);
    } else {
        text_put(t, c, 1);
        if (p > 1) {
            text_put(t, ".", 1);
            text_put(t, c + 1, p - 1);
        }
        text_put(t, n - 1 < 0 ? "e-" : "e+", 2);
        text_int(t, n - 1 < 0 ? 1 - n : n - 1);
    }
}

static void text_json_string(struct pa_text *t, const u8 *s, u32 n) {
    static const char hex[] = "0123456789abcdef";
    text_put(t, "\"", 1);
    for (u32 i = 0; i < n; i++) {
        u8 c = s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            text_put(t, e, 2);
        } else if (c == '\n') {
            text_put(t, "\\n", 2);
        } else if (c < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            text_put(t, e, 6);
        } else {
            text_put(t, &c, 1);
        }
    }
    text_put(t, "\"", 1);
}

static void text_base64(struct pa_text *t, const u8 *s, u32 n) {
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (u32 i = 0; i < n; i += 3) {
        u32 v = (u32)s[i] << 16 | (i + 1 < n ? (u32)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
        char q[4] = {b64[v >> 18], b64[(v >> 12) & 63], i + 1 < n ? b64[(v >> 6) & 63] : '=',
                     i + 2 < n ? b64[v & 63] : '='};
        text_put(t, q, 4);
    }
}

/* Var `v` as JSON (the lock held). Cycles and too deep nesting fail, as Chrome refused
   them. */
static void text_json(struct pa_text *t, const struct PP_Var *v, int depth) {
    if (depth > PA_MAX_DEPTH) {
        t->failed = 1;
        return;
    }
    switch (v->type) {
    case PP_VARTYPE_UNDEFINED:
    case PP_VARTYPE_NULL:
        text_str(t, "null");
        return;
    case PP_VARTYPE_BOOL:
        text_str(t, v->value.as_int ? "true" : "false");
        return;
    case PP_VARTYPE_INT32:
        text_int(t, v->value.as_int);
        return;
    case PP_VARTYPE_DOUBLE:
        text_double(t, v->value.as_double);
        return;
    default:
        break;
    }
    struct pa_object *o = pa_lookup(v, v->type);
    if (!o) {
        text_str(t, "null");
        return;
    }
    if (v->type == PP_VARTYPE_STRING) {
        text_json_string(t, o->bytes, o->len);
    } else if (v->type == PP_VARTYPE_ARRAY_BUFFER) {
        text_str(t, "{\"$arraybuffer\":\"");
        text_base64(t, o->bytes, o->len);
        text_str(t, "\"}");
    } else if (v->type == PP_VARTYPE_ARRAY) {
        text_put(t, "[", 1);
        for (u32 i = 0; i < o->len && !t->failed; i++) {
            if (i) text_put(t, ",", 1);
            struct PP_Var item = o->items[i];
            text_json(t, &item, depth + 1);
            o = pa_lookup(v, v->type);
            if (!o) break;
        }
        text_put(t, "]", 1);
    } else if (v->type == PP_VARTYPE_DICTIONARY) {
        text_put(t, "{", 1);
        for (u32 i = 0; i < o->len && !t->failed; i++) {
            if (i) text_put(t, ",", 1);
            struct PP_Var key = o->items[2 * i], value = o->items[2 * i + 1];
            text_json(t, &key, depth + 1);
            text_put(t, ":", 1);
            text_json(t, &value, depth + 1);
            o = pa_lookup(v, v->type);
            if (!o) break;
        }
        text_put(t, "}", 1);
    } else {
        text_str(t, "null");
    }
}

/* JSON text → var (the lock held). */
struct pa_parse {
    const u8 *s;
    u32 n, i;
    int failed;
};

static void parse_space(struct pa_parse *p) {
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\r' || p->s[p->i] == '\n'))
        p->i++;
}

static int parse_literal(struct pa_parse *p, const char *word) {
    u32 n = (u32)slen(word);
    if (p->n - p->i < n || __builtin_memcmp(p->s + p->i, word, n)) return 0;
    p->i += n;
    return 1;
}

static int hexval(u8 c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A JSON string at p->i (after its quote) into `t` as UTF-8. */
static void parse_string(struct pa_parse *p, struct pa_text *t) {
    for (;;) {
        if (p->i >= p->n) {
            p->failed = 1;
            return;
        }
        u8 c = p->s[p->i++];
        if (c == '"') return;
        if (c < 0x20) {
            p->failed = 1;
            return;
        }
        if (c != '\\') {
            text_put(t, &c, 1);
            continue;
        }
        if (p->i >= p->n) {
            p->failed = 1;
            return;
        }
        c = p->s[p->i++];
        const char *simple = "\"\\/bfnrt", *meaning = "\"\\/\b\f\n\r\t";
        int k = 0;
        while (simple[k] && simple[k] != c) k++;
        if (simple[k]) {
            text_put(t, &meaning[k], 1);
            continue;
        }
        if (c != 'u') {
            p->failed = 1;
            return;
        }
        u32 cp = 0;
        for (int round = 0; round < 2; round++) {
            if (p->n - p->i < 4) {
                p->failed = 1;
                return;
            }
            u32 u = 0;
            for (int j = 0; j < 4; j++) {
                int h = hexval(p->s[p->i++]);
                if (h < 0) {
                    p->failed = 1;
                    return;
                }
                u = u << 4 | (u32)h;
            }
            if (round == 0) {
                cp = u;
                if (u < 0xd800 || u >= 0xe000) break;
                if (u >= 0xdc00 || !parse_literal(p, "\\u")) {
                    p->failed = 1; /* a lone surrogate: not UTF-8 */
                    return;
                }
            } else {
                if (u < 0xdc00 || u >= 0xe000) {
                    p->failed = 1;
                    return;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (u - 0xdc00);
            }
        }
        u8 b[4];
        u32 len;
        if (cp < 0x80) b[0] = (u8)cp, len = 1;
        else if (cp < 0x800) b[0] = (u8)(0xc0 | cp >> 6), b[1] = (u8)(0x80 | (cp & 63)), len = 2;
        else if (cp < 0x10000)
            b[0] = (u8)(0xe0 | cp >> 12), b[1] = (u8)(0x80 | ((cp >> 6) & 63)), b[2] = (u8)(0x80 | (cp & 63)), len = 3;
        else
            b[0] = (u8)(0xf0 | cp >> 18), b[1] = (u8)(0x80 | ((cp >> 12) & 63)), b[2] = (u8)(0x80 | ((cp >> 6) & 63)),
            b[3] = (u8)(0x80 | (cp & 63)), len = 4;
        text_put(t, b, len);
    }
}

/* A JSON number at p->i: an INT32 var if integral and within 32 bits, else DOUBLE. */
static int pa_digit(const struct pa_parse *p) { return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9'; }

/* A JSON number: the double nearest to it, an INT32 var when that is an integer that fits
   in 32 bits (not -0), as Chrome made page numbers. */
static void parse_number(struct pa_parse *p, struct PP_Var *out) {
    int neg = 0;
    if (p->s[p->i] == '-') neg = 1, p->i++;
    if (!pa_digit(p) || (p->s[p->i] == '0' && p->i + 1 < p->n && p->s[p->i + 1] >= '0' && p->s[p->i + 1] <= '9')) {
        p->failed = 1;
        return;
    }
    u8 digits[PA_MAX_DIGITS];
    u32 nd = 0;
    int sticky = 0;
    i64 exp10 = 0; /* the number is 0.DIGITS (and beyond) x 10^exp10 */
    for (; pa_digit(p); p->i++) {
        u8 v = (u8)(p->s[p->i] - '0');
        if (nd == 0 && v == 0) continue;
        if (nd < PA_MAX_DIGITS) digits[nd++] = v;
        else sticky |= v != 0;
        if (exp10 < 100000000) exp10++;
    }
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (!pa_digit(p)) {
            p->failed = 1;
            return;
        }
        for (; pa_digit(p); p->i++) {
            u8 v = (u8)(p->s[p->i] - '0');
            if (nd == 0 && v == 0) {
                if (exp10 > -100000000) exp10--;
                continue;
            }
            if (nd < PA_MAX_DIGITS) digits[nd++] = v;
            else sticky |= v != 0;
        }
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        int eneg = 0;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) eneg = p->s[p->i++] == '-';
        if (!pa_digit(p)) {
            p->failed = 1;
            return;
        }
        i64 e = 0;
        for (; pa_digit(p); p->i++)
            if (e < 100000000) e = e * 10 + (p->s[p->i] - '0');
        exp10 += eneg ? -e : e;
    }
    while (nd > 0 && digits[nd - 1] == 0) nd--;
    double d = 0;
    if (nd) {
        i64 e = exp10 - (i64)nd;
        d = e > 1000 ? __builtin_inf() : e < -2000 ? 0 : pa_decimal_to_double(digits, nd, (int)e, sticky);
    }
    if (neg) d = -d;
    pa_zero(out, sizeof *out);
    if (d >= -2147483648.0 && d <= 2147483647.0 && d == (double)(i32)d && !(d == 0 && neg)) {
        out->type = PP_VARTYPE_INT32;
        out->value.as_int = (i32)d;
    } else {
        out->type = PP_VARTYPE_DOUBLE;
        out->value.as_double = d;
    }
}

static void parse_value(struct pa_parse *p, struct PP_Var *out, int depth);

static int b64val(u8 c) {
    return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
         : c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* An ArrayBuffer of base64 text `t` into `out`: 0, or -1. */
static int parse_arraybuffer(struct pa_text *t, struct PP_Var *out) {
    u32 n = t->len;
    if (n % 4) return -1;
    u32 size = n / 4 * 3 - (n && t->p[n - 1] == '=') - (n > 1 && t->p[n - 2] == '=');
    u8 *b = pa_alloc((size_t)size + 1);
    if (!b) return -1;
    u32 o = 0;
    for (u32 i = 0; i < n; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++) {
            v[k] = t->p[i + k] == '=' && i + 4 == n && k >= 2 ? 0 : b64val(t->p[i + k]);
            if (v[k] < 0) {
                pa_release_block(b);
                return -1;
            }
        }
        u32 w = (u32)v[0] << 18 | (u32)v[1] << 12 | (u32)v[2] << 6 | (u32)v[3];
        if (o < size) b[o++] = (u8)(w >> 16);
        if (o < size) b[o++] = (u8)(w >> 8);
        if (o < size) b[o++] = (u8)w;
    }
    struct pa_object *a = pa_new(PP_VARTYPE_ARRAY_BUFFER, out);
    a->bytes = b;
    a->len = size;
    return 0;
}

static void parse_value(struct pa_parse *p, struct PP_Var *out, int depth) {
    pa_set_undefined(out);
    parse_space(p);
    if (p->failed || p->i >= p->n || depth > PA_MAX_DEPTH) {
        p->failed = 1;
        return;
    }
    u8 c = p->s[p->i];
    if (c == '"') {
        p->i++;
        struct pa_text t = {0};
        parse_string(p, &t);
        if (!p->failed && !t.failed && pa_string_locked(out, (const char *)t.p, t.len)) p->failed = 1;
        if (t.failed) p->failed = 1;
        pa_release_block(t.p);
    } else if (c == '[') {
        p->i++;
        pa_new(PP_VARTYPE_ARRAY, out);
        parse_space(p);
        if (p->i < p->n && p->s[p->i] == ']') {
            p->i++;
            return;
        }
        for (;;) {
            struct PP_Var item;
            parse_value(p, &item, depth + 1);
            struct pa_object *a = pa_lookup(out, PP_VARTYPE_ARRAY);
            if (!p->failed && (!a || !array_set_locked(a, a->len, &item))) p->failed = 1;
            pa_release_locked(&item);
            parse_space(p);
            if (p->failed || p->i >= p->n) break;
            if (p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->s[p->i] == ']') {
                p->i++;
                return;
            }
            break;
        }
        p->failed = 1;
    } else if (c == '{') {
        p->i++;
        pa_new(PP_VARTYPE_DICTIONARY, out);
        parse_space(p);
        if (p->i < p->n && p->s[p->i] == '}') {
            p->i++;
            return;
        }
        for (;;) {
            parse_space(p);
            if (p->i >= p->n || p->s[p->i] != '"') break;
            struct PP_Var key, value;
            parse_value(p, &key, depth + 1);
            parse_space(p);
            if (p->failed || p->i >= p->n || p->s[p->i] != ':') {
                pa_release_locked(&key);
                break;
            }
            p->i++;
            parse_value(p, &value, depth + 1);
            struct pa_object *d = pa_lookup(out, PP_VARTYPE_DICTIONARY);
            if (!p->failed && (!d || !dict_set_locked(d, &key, &value))) p->failed = 1;
            pa_release_locked(&key);
            pa_release_locked(&value);
            parse_space(p);
            if (p->failed || p->i >= p->n) break;
            if (p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->s[p->i] == '}') {
                p->i++;
                /* {"$arraybuffer": "<base64>"} alone is an ArrayBuffer. */
                struct pa_object *o = pa_lookup(out, PP_VARTYPE_DICTIONARY);
                struct pa_object *k = o && o->len == 1 ? pa_lookup(&o->items[0], PP_VARTYPE_STRING) : NULL;
                struct pa_object *s = o && o->len == 1 ? pa_lookup(&o->items[1], PP_VARTYPE_STRING) : NULL;
                if (k && s && k->len == 12 && !__builtin_memcmp(k->bytes, "$arraybuffer", 12)) {
                    struct pa_text t = {s->bytes, s->len, s->len, 0};
                    struct PP_Var buffer;
                    if (parse_arraybuffer(&t, &buffer)) {
                        p->failed = 1;
                        return;
                    }
                    pa_release_locked(out);
                    *out = buffer;
                }
                return;
            }
            break;
        }
        p->failed = 1;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        parse_number(p, out);
    } else if (parse_literal(p, "true") || parse_literal(p, "false")) {
        out->type = PP_VARTYPE_BOOL;
        out->value.as_int = c == 't';
    } else if (parse_literal(p, "null")) {
        out->type = PP_VARTYPE_NULL;
    } else {
        p->failed = 1;
    }
}

/* The var a line of standard input is (`len` bytes, without the newline): 0, or -1 when
   it is not a message (bad JSON, not UTF-8). */
static int pa_message_of_line(const u8 *line, u32 len, struct PP_Var *out) {
    if (!pa_utf8(line, len)) return -1;
    lock(&pa_var_lock);
    int r = 0;
    if (!pa_json) {
        r = pa_string_locked(out, (const char *)line, len);
    } else {
        struct pa_parse p = {line, len, 0, 0};
        parse_value(&p, out, 0);
        parse_space(&p);
        if (p.failed || p.i != p.n) {
            pa_release_locked(out);
            pa_set_undefined(out);
            r = -1;
        }
    }
    unlock(&pa_var_lock);
    return r;
}

#endif
