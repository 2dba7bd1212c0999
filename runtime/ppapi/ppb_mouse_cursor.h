/*
 * PPB_MouseCursor;1.0: the cursor over the plugin's element, as Chrome set it: one of the
 * browser's cursors (PP_MOUSECURSOR_TYPE_POINTER 0 .. MIDDLEPANNINGHORIZONTAL 44; NONE
 * hides it), or a custom one from an ImageData of at most 32 x 32 pixels with its hot
 * spot inside it (PPB_Instance_Shared's rules). In a page the element's CSS cursor
 * (PA_TO_CURSOR: type, hot spot x, y, width, height, format, then the pixels, row by
 * row); headless, the call only answers.
 */
#ifndef PA_PPB_MOUSE_CURSOR_H
#define PA_PPB_MOUSE_CURSOR_H

#include "page.h"
#include "ppb_image_data.h"

#define PP_MOUSECURSOR_TYPE_CUSTOM (-1)
#define PA_CURSOR_TYPES 45
#define PA_CURSOR_MAX_SIDE 32

static i32 mouse_cursor_set(i32 instance, i32 type, i32 image, const struct PP_Point *hot_spot) {
    if (instance != pa_instance || type < PP_MOUSECURSOR_TYPE_CUSTOM || type >= PA_CURSOR_TYPES) return 0;
    if (type != PP_MOUSECURSOR_TYPE_CUSTOM) {
        u32 rec[8] = {32, PA_TO_CURSOR, (u32)type, 0, 0, 0, 0, 0};
        pa_to_page(rec, sizeof rec);
        return 1;
    }
    PA_HOLD(struct pa_image, im, image, RES_IMAGE);
    if (!im || !hot_spot || im->w > PA_CURSOR_MAX_SIDE || im->h > PA_CURSOR_MAX_SIDE) return 0;
    struct PP_Point hot = *hot_spot;
    if (hot.x < 0 || hot.y < 0 || hot.x >= im->w || hot.y >= im->h) return 0;
    u32 rec[8 + PA_CURSOR_MAX_SIDE * PA_CURSOR_MAX_SIDE];
    u32 row = (u32)im->w * 4;
    rec[0] = 32 + row * (u32)im->h;
    rec[1] = PA_TO_CURSOR;
    rec[2] = (u32)type;
    rec[3] = (u32)hot.x, rec[4] = (u32)hot.y;
    rec[5] = (u32)im->w, rec[6] = (u32)im->h, rec[7] = (u32)im->format;
    for (i32 y = 0; y < im->h; y++) copy((u8 *)(rec + 8) + (u32)y * row, im->pixels + (u32)y * (u32)im->stride, row);
    pa_to_page(rec, rec[0]);
    return 1;
}

#define PPB_MOUSECURSOR_1_0(X) X(i32, SetCursor, (i32 instance, i32 type, i32 image, const struct PP_Point *hot_spot), mouse_cursor_set)
PA_TABLE(PPB_MouseCursor_1_0, ppb_mouse_cursor_1_0, PPB_MOUSECURSOR_1_0)

#endif
