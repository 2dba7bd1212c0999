// Shapes a text file with a font through HarfBuzz's public API (harfbuzz-sys's HarfBuzz
// sources, unchanged) and prints, per line, the glyph count and a digest of every glyph's
// id, cluster, advance and offset; the first lines' glyphs in full. The test compares the
// pexe's output with the same program built natively.
#include <hb.h>

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s font.ttf text.txt\n", argv[0]);
    return 2;
  }
  hb_blob_t *blob = hb_blob_create_from_file_or_fail(argv[1]);
  if (!blob) {
    std::fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  hb_face_t *face = hb_face_create(blob, 0);
  hb_font_t *font = hb_font_create(face);
  std::printf("%s: %u bytes, %u glyphs, upem %u\n", argv[1], hb_blob_get_length(blob),
              hb_face_get_glyph_count(face), hb_face_get_upem(face));
  std::FILE *text = std::fopen(argv[2], "r");
  if (!text) {
    std::fprintf(stderr, "%s: cannot open\n", argv[2]);
    return 1;
  }
  hb_buffer_t *buf = hb_buffer_create();
  std::string line;
  unsigned lines = 0, glyphs = 0;
  unsigned long long all = 1469598103934665603ull;
  int c;
  do {
    c = std::fgetc(text);
    if (c != '\n' && c != EOF) {
      line.push_back(char(c));
      continue;
    }
    if (line.empty()) continue;
    hb_buffer_clear_contents(buf);
    hb_buffer_add_utf8(buf, line.data(), int(line.size()), 0, -1);
    hb_buffer_guess_segment_properties(buf);
    hb_shape(font, buf, nullptr, 0);
    unsigned n = 0;
    hb_glyph_info_t *info = hb_buffer_get_glyph_infos(buf, &n);
    hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(buf, &n);
    unsigned long long h = 1469598103934665603ull;
    long width = 0;
    for (unsigned i = 0; i < n; i++) {
      const long v[6] = {long(info[i].codepoint), long(info[i].cluster), pos[i].x_advance,
                         pos[i].y_advance, pos[i].x_offset, pos[i].y_offset};
      for (long x : v) h = (h ^ (unsigned long long)x) * 1099511628211ull;
      width += pos[i].x_advance;
    }
    if (lines < 4) {
      char out[4096];
      hb_buffer_serialize_glyphs(buf, 0, n, out, sizeof out, nullptr, font,
                                 HB_BUFFER_SERIALIZE_FORMAT_TEXT,
                                 HB_BUFFER_SERIALIZE_FLAG_DEFAULT);
      std::printf("%s\n", out);
    }
    std::printf("line %u: %u glyphs, width %ld, %016llx\n", lines + 1, n, width, h);
    all = (all ^ h) * 1099511628211ull;
    lines++;
    glyphs += n;
    line.clear();
  } while (c != EOF);
  std::printf("%u lines, %u glyphs, %016llx\n", lines, glyphs, all);
  std::fclose(text);
  hb_buffer_destroy(buf);
  hb_font_destroy(font);
  hb_face_destroy(face);
  hb_blob_destroy(blob);
  return 0;
}
