/*
 * Standard output, buffered in the runtime when it is not a terminal.
 *
 * The pexes' newlib writes stdout a line at a time to a file or a pipe as to a terminal
 * (fasta 250000: 41,671 writes, whatever stdout is), where glibc writes blocks. The
 * runtime gathers those writes in blocks of OUTBUF bytes when stdout is not a terminal; a
 * terminal still gets each line as it comes. The block goes out when it is full, before
 * anything is written to another descriptor or read from any (a prompt comes before its
 * answer, and what goes to stderr stays in order with stdout when both are the same file),
 * before a descriptor is closed or replaced, and when the program exits.
 *
 * Over the backend's raw_write, is_terminal, lock, unlock and copy (backend.h).
 */

#define OUTBUF 65536

static struct {
    volatile int lock;
    int mode; /* 0 not yet known, 1 buffered, 2 written through */
    int error; /* a deferred write error (NaCl errno), reported by the next write */
    size_t len;
    u8 data[OUTBUF];
} out;

/* Writes all of `n` bytes at `p` to `fd`: 0, or the NaCl errno. */
static int write_all(int fd, const u8 *p, size_t n) {
    while (n > 0) {
        long r = raw_write(fd, p, n);
        if (r < 0) return (int)-r;
        if (r == 0) return 5; /* EIO */
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Sends the gathered block (the lock held). */
static void out_flush_locked(void) {
    if (out.len > 0) {
        int e = write_all(1, out.data, out.len);
        if (e && !out.error) out.error = e;
        out.len = 0;
    }
}

/* Sends what is gathered: before another descriptor is written or read, and at exit. */
static void out_flush(void) {
    if (out.mode != 1 || __atomic_load_n(&out.len, __ATOMIC_RELAXED) == 0) return;
    lock(&out.lock);
    out_flush_locked();
    unlock(&out.lock);
}

/* write(1, …) through the block when stdout is not a terminal: 0 or the NaCl errno. */
static int out_write(const void *buf, size_t n, size_t *nwrote) {
    if (out.mode == 0) out.mode = is_terminal(1) ? 2 : 1;
    if (out.mode == 2) {
        long r = raw_write(1, buf, n);
        if (r < 0) return (int)-r;
        *nwrote = (size_t)r;
        return 0;
    }
    lock(&out.lock);
    int e = out.error;
    out.error = 0;
    if (!e) {
        if (out.len + n > OUTBUF) out_flush_locked();
        if (n >= OUTBUF) {
            e = write_all(1, buf, n);
        } else {
            copy(out.data + out.len, buf, n);
            out.len += n;
        }
    }
    unlock(&out.lock);
    if (e) return e;
    *nwrote = n;
    return 0;
}
