/* A hostile plugin for the page host's bounds (tests/site.rs), built with pnacl-clang: a
   plain pexe, no PPAPI, that floods what reaches the page. Its argument (the element's
   `mode` attribute, "mode=...") says what:
   - mode=stderr: for 3 s, writes of 1 MiB with no newline to standard error, then for
     2 s short lines, then (a second and a half later) a last line;
   - mode=channel: it takes the page channel (descriptor 3) from its runtime, whose rule
     for it is a table in the plugin's own memory (it finds the word of the first 32
     descriptors' bits, 0, 1 and 2 open, and sets bit 3), then binds an 8192 x 8192 2-D
     device and for 5 s sends full-frame flushes of it, 2,000 to a write.
   - mode=fuzz (seed=N): it takes the channel so, then sends 60,000 random and mutated
     records (fuzz(), below).
   It says on standard error what it did, then waits, so that the page goes on with it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void say(const char *s) { write(2, s, strlen(s)); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int take_channel(void) {
    static const uint32_t probe[4] = {16, 4 /* URL_CLOSE */, 0, 0};
    char *top = malloc(16);
    for (volatile uint32_t *p = (uint32_t *)1024; (char *)p < top; p++) {
        if (*p != 7) continue;
        *p = 15;
        if (write(3, probe, sizeof probe) == (ssize_t)sizeof probe) return 1;
        *p = 7;
    }
    return 0;
}

/* The fuzzer's random numbers (xorshift32). */
static uint32_t rng;
static uint32_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* A word as a fuzzer picks one: small, a boundary, a device or an address of ours, or
   anything. */
static uint32_t word(uint8_t *mem) {
    static const uint32_t edges[] = {0,          1,          2,          3,      4,
                                     8192,       16384,      16385,      65536,  0x7fffffff,
                                     0x80000000, 0xffffffff, 0xfffffff0, 0x2001, 0x2000,
                                     44100,      48000,      0x3f800000};
    switch (next() % 4) {
    case 0: return next() % 64;
    case 1: return edges[next() % (sizeof edges / sizeof *edges)];
    case 2: return (uint32_t)(uintptr_t)mem + next() % 4096;
    default: return next();
    }
}

/* The kinds of record to the page: channel.def's PA_TO lines, counted. */
#define PA_TO(kind) +1
#define PA_FROM(kind)
static const uint32_t to_kinds = 0
#include "../../runtime/ppapi/channel.def"
    ;

/* Three rounds (seeds SEED, SEED+1, SEED+2) of 20,000 records each, of every kind and
   none, well and badly framed, with their fields and bytes as word() picks them; then
   the plugin says how many it sent. */
static void fuzz(uint32_t seed) {
    uint8_t *mem = calloc(1, 1 << 16);
    static uint32_t buf[1 << 14];
    int sent = 0;
    for (int round = 0; round < 3; round++) {
        rng = (seed + round) * 2654435761u | 1;
        for (int i = 0; i < 20000; i++) {
            uint32_t words = 2 + next() % 12;
            if (next() % 8 == 0) words = 2 + next() % 1000;
            for (uint32_t k = 0; k < words; k++) buf[k] = word(mem);
            uint32_t len = words * 4;
            switch (next() % 16) {
            case 0: buf[0] = word(mem); break;          /* any length word at all */
            case 1: buf[0] = len - 1 - next() % 3; break; /* not a multiple of four */
            default: buf[0] = len;
            }
            buf[1] = next() % 16 ? 1 + next() % to_kinds : next() % 64;
            /* The bytes a record may carry: text for URLs and sockets, now and then. */
            if (words > 8 && next() % 2) memcpy(&buf[6], "ws://x/", 7);
            write(3, buf, len);
            sent++;
        }
    }
    struct timespec pause = {1, 500000000};
    nanosleep(&pause, NULL);
    char done[64];
    snprintf(done, sizeof done, "attack: fuzz sent %d records\n", sent);
    say(done);
}

int main(int argc, char **argv) {
    const char *mode = "";
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "mode=", 5)) mode = argv[i] + 5;
    if (!strcmp(mode, "stderr")) {
        static char chunk[1 << 20];
        memset(chunk, 'x', sizeof chunk);
        say("attack: stderr flood\n");
        /* For 3 s, 1 MiB writes with no newline; then for 2 s, short lines. */
        int n = 0;
        for (double t0 = now(); now() - t0 < 3; n++) write(2, chunk, sizeof chunk);
        say("\n");
        static char lines[10000 * 12];
        for (int i = 0; i < 10000; i++) memcpy(lines + 12 * i, "line 123456\n", 12);
        for (double t0 = now(); now() - t0 < 2;) write(2, lines, sizeof lines);
        struct timespec pause = {1, 500000000};
        nanosleep(&pause, NULL);
        char done[64];
        snprintf(done, sizeof done, "attack: stderr flood sent (%d MiB)\n", n);
        say(done);
    } else if (!strcmp(mode, "channel")) {
        if (!take_channel()) {
            say("attack: no channel\n");
            return 1;
        }
        say("attack: channel taken\n");
        const uint32_t w = 8192, h = 8192, device = 0x2001;
        uint8_t *pixels = malloc((size_t)w * h * 4);
        if (!pixels) return 2;
        const uint32_t bind[7] = {28, 1, device, w, h, 0x3f800000 /* 1.0f */, 0};
        write(3, bind, sizeof bind);
        static uint32_t batch[2000][8];
        for (int i = 0; i < 2000; i++) {
            const uint32_t flush[8] = {32, 2, device, (uint32_t)(uintptr_t)pixels, w, h, w * 4, 0};
            memcpy(batch[i], flush, sizeof flush);
        }
        /* For 5 s, 2,000 flushes to a write. */
        int n = 0;
        for (double t0 = now(); now() - t0 < 5; n++) write(3, batch, sizeof batch);
        char done[64];
        snprintf(done, sizeof done, "attack: channel flood sent (%d000 flushes)\n", 2 * n);
        say(done);
    } else if (!strcmp(mode, "fuzz")) {
        if (!take_channel()) {
            say("attack: no channel\n");
            return 1;
        }
        uint32_t seed = 1;
        for (int i = 1; i < argc; i++)
            if (!strncmp(argv[i], "seed=", 5)) seed = (uint32_t)strtoul(argv[i] + 5, NULL, 10);
        fuzz(seed);
    }
    for (;;) {
        struct timespec t = {1, 0};
        nanosleep(&t, NULL);
    }
}
