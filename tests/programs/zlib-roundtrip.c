/* zlib round trip, around zlib's own sources (libz-sys's, unchanged): compresses the file
   named by the first argument with deflate at the level the second gives, writes the
   compressed bytes to the file the third names, inflates them again and checks they are
   the input; prints the sizes and both checksums. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zlib.h"

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s INPUT LEVEL OUTPUT\n", argv[0]);
    return 2;
  }
  size_t len;
  unsigned char *in = slurp(argv[1], &len);
  if (!in) {
    perror(argv[1]);
    return 1;
  }
  int level = atoi(argv[2]);
  uLongf clen = compressBound(len);
  unsigned char *out = malloc(clen);
  /* Streamed in pieces, as a real compressor writes. */
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (deflateInit2(&zs, level, Z_DEFLATED, 15, 9, Z_DEFAULT_STRATEGY) != Z_OK) return 1;
  zs.next_out = out;
  zs.avail_out = (uInt)clen;
  size_t off = 0;
  int r;
  do {
    size_t piece = len - off < 65536 ? len - off : 65536;
    zs.next_in = in + off;
    zs.avail_in = (uInt)piece;
    off += piece;
    r = deflate(&zs, off == len ? Z_FINISH : Z_NO_FLUSH);
  } while (r == Z_OK);
  if (r != Z_STREAM_END) {
    fprintf(stderr, "deflate: %d\n", r);
    return 1;
  }
  clen = zs.total_out;
  deflateEnd(&zs);
  FILE *o = fopen(argv[3], "wb");
  if (!o || fwrite(out, 1, clen, o) != clen || fclose(o) != 0) {
    perror(argv[3]);
    return 1;
  }
  unsigned char *back = malloc(len + 1);
  uLongf blen = len + 1;
  if (uncompress(back, &blen, out, clen) != Z_OK || blen != len || memcmp(back, in, len) != 0) {
    fprintf(stderr, "the round trip does not give the input back\n");
    return 1;
  }
  printf("%zu bytes -> %lu bytes, crc32 %08lx adler32 %08lx, zlib %s\n", len, (unsigned long)clen,
         crc32(0, in, (uInt)len), adler32(1, in, (uInt)len), zlibVersion());
  return 0;
}
