/*
 * PPB_InputEvent;1.0 and its kinds (mouse, wheel, keyboard, touch, IME): the classes the
 * plugin asks for, told to the page (PA_TO_INPUT); each event it sends (PA_FROM_INPUT) a
 * resource handed to PPP_InputEvent on the main thread. Headless, none comes.
 */
#ifndef PA_PPB_INPUT_EVENT_H
#define PA_PPB_INPUT_EVENT_H

#include "events.h"
#include "resource.h"
#include "page.h"
#include "var.h"

/* Input events: the classes the plugin asked for (filtering or not), which the page is
   told (PA_TO_INPUT: classes, filtering ones); each event the page sends (PA_FROM_INPUT)
   is a resource handed to PPP_InputEvent on the main thread. Headless, none comes. */
static u32 pa_input_classes, pa_input_filtering;

/* Tells the page which classes of events to send (and which the plugin filters). */
static void pa_input_to_page(void) {
    u32 rec[4] = {16, PA_TO_INPUT, __atomic_load_n(&pa_input_classes, __ATOMIC_RELAXED),
                  __atomic_load_n(&pa_input_filtering, __ATOMIC_RELAXED)};
    pa_to_page(rec, sizeof rec);
}

static void pa_input_gone(void *data);
static const struct pa_kind pa_kind_input = {"InputEvent", pa_input_gone, NULL};
#define RES_INPUT (&pa_kind_input)

static i32 input_request_as(i32 instance, u32 classes, int filtering) {
    if (instance != pa_instance) return PP_ERROR_BADARGUMENT;
    __atomic_or_fetch(&pa_input_classes, classes & 63, __ATOMIC_RELAXED);
    if (filtering) __atomic_or_fetch(&pa_input_filtering, classes & 63, __ATOMIC_RELAXED);
    else __atomic_and_fetch(&pa_input_filtering, ~classes, __ATOMIC_RELAXED);
    pa_input_to_page();
    return classes & ~63u ? PP_ERROR_NOTSUPPORTED : PP_OK;
}

static i32 input_request(i32 instance, u32 classes) { return input_request_as(instance, classes, 0); }
static i32 input_request_filtering(i32 instance, u32 classes) { return input_request_as(instance, classes, 1); }

static void input_clear(i32 instance, u32 classes) {
    if (instance != pa_instance) return;
    __atomic_and_fetch(&pa_input_classes, ~classes, __ATOMIC_RELAXED);
    __atomic_and_fetch(&pa_input_filtering, ~classes, __ATOMIC_RELAXED);
    pa_input_to_page();
}

struct PP_FloatPoint { float x, y; };

/* A touch point (PP_TouchPoint, 28 bytes, then its tilt). */
struct PP_TouchPoint {
    u32 id;
    struct PP_FloatPoint position, radius;
    float rotation_angle, pressure;
};
#define PA_MAX_TOUCHES 16
struct pa_touches {
    u32 count[3]; /* TOUCHES, CHANGEDTOUCHES, TARGETTOUCHES */
    struct PP_TouchPoint point[3][PA_MAX_TOUCHES];
    struct PP_FloatPoint tilt[3][PA_MAX_TOUCHES];
};
/* An IME event's segments (byte offsets into its text). */
#define PA_MAX_SEGMENTS 64

struct pa_input {
    i32 type, modifiers, button, click_count, key_code, by_page;
    double time;
    struct PP_Point position, movement;
    struct PP_FloatPoint delta, ticks;
    struct PP_Var text, code; /* the event's own references */
    struct pa_touches *touches; /* touch events' own */
    u32 *segments;              /* IME events': segment_number + 1 offsets */
    u32 nsegments, sel_start, sel_end;
    i32 target_segment;
};

static i32 input_is_event(i32 r) { return pa_resource_kind(r) == RES_INPUT; }

static i32 input_get_type(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e ? e->type : -1;
}

static double input_get_time_stamp(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e ? e->time : 0;
}

static u32 input_get_modifiers(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e ? (u32)e->modifiers : 0;
}

/* Types: MOUSEDOWN 0 .. MOUSELEAVE 4, CONTEXTMENU 10 (mouse); WHEEL 5; RAWKEYDOWN 6 ..
   CHAR 9 (keyboard). */
static int pa_is_mouse(i32 t) { return (t >= 0 && t <= 4) || t == 10; }
static int pa_is_key(i32 t) { return t >= 6 && t <= 9; }
static int pa_is_touch(i32 t) { return t >= 15 && t <= 18; }
static int pa_is_ime(i32 t) { return t >= 11 && t <= 14; }

/* An input event's own state released (its vars, touches, segments). */
static void pa_input_free(struct pa_input *e) {
    var_release(&e->text);
    var_release(&e->code);
    pa_release_block(e->touches);
    pa_release_block(e->segments);
    pa_release_block(e);
}

/* A resource for event `src` (whose references it takes), or 0. */
static i32 pa_new_input(struct pa_input *src) {
    struct pa_input *e = pa_alloc(sizeof *e);
    if (!e) {
        var_release(&src->text);
        var_release(&src->code);
        pa_release_block(src->touches);
        pa_release_block(src->segments);
        return 0;
    }
    *e = *src;
    i32 r = pa_new_resource_with(RES_INPUT, e);
    if (!r) pa_input_free(e);
    return r;
}

static i32 mouse_create(i32 instance, i32 type, double time, u32 modifiers, i32 button,
                        const struct PP_Point *position, i32 clicks, const struct PP_Point *movement) {
    if (instance != pa_instance || !pa_is_mouse(type)) return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = type, e.time = time, e.modifiers = (i32)modifiers, e.button = button, e.click_count = clicks;
    if (position) e.position = *position;
    if (movement) e.movement = *movement;
    return pa_new_input(&e);
}

static i32 mouse_create_1_0(i32 instance, i32 type, double time, u32 modifiers, i32 button,
                            const struct PP_Point *position, i32 clicks) {
    return mouse_create(instance, type, time, modifiers, button, position, clicks, NULL);
}

static i32 mouse_is(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_mouse(e->type);
}

static i32 mouse_button(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_mouse(e->type) ? e->button : -1;
}

static void mouse_position(struct PP_Point *out, i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (e && pa_is_mouse(e->type)) *out = e->position;
}

static i32 mouse_clicks(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_mouse(e->type) ? e->click_count : 0;
}

static void mouse_movement(struct PP_Point *out, i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (e && pa_is_mouse(e->type)) *out = e->movement;
}

static i32 wheel_create(i32 instance, double time, u32 modifiers, const struct PP_FloatPoint *delta,
                        const struct PP_FloatPoint *ticks, i32 by_page) {
    if (instance != pa_instance) return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = 5, e.time = time, e.modifiers = (i32)modifiers, e.by_page = by_page != 0;
    if (delta) e.delta = *delta;
    if (ticks) e.ticks = *ticks;
    return pa_new_input(&e);
}

static i32 wheel_is(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && e->type == 5;
}

static void wheel_delta(struct PP_FloatPoint *out, i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (e && e->type == 5) *out = e->delta;
}

static void wheel_ticks(struct PP_FloatPoint *out, i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (e && e->type == 5) *out = e->ticks;
}

static i32 wheel_by_page(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && e->type == 5 && e->by_page;
}

static i32 key_create(i32 instance, i32 type, double time, u32 modifiers, u32 key_code,
                      const struct PP_Var *text, const struct PP_Var *code) {
    if (instance != pa_instance || !pa_is_key(type)) return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = type, e.time = time, e.modifiers = (i32)modifiers, e.key_code = (i32)key_code;
    if (text && text->type == PP_VARTYPE_STRING) e.text = *text, var_addref(&e.text);
    if (code && code->type == PP_VARTYPE_STRING) e.code = *code, var_addref(&e.code);
    return pa_new_input(&e);
}

static i32 key_create_1_0(i32 instance, i32 type, double time, u32 modifiers, u32 key_code,
                          const struct PP_Var *text) {
    return key_create(instance, type, time, modifiers, key_code, text, NULL);
}

static i32 key_is(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_key(e->type);
}

static u32 key_code(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_key(e->type) ? (u32)e->key_code : 0;
}

/* A new reference to a string var of the event (UNDEFINED if it has none). */
static void pa_input_var(struct PP_Var *out, i32 r, int code) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (!e || !(pa_is_key(e->type) || (pa_is_ime(e->type) && !code))) return;
    *out = code ? e->code : e->text;
    var_addref(out);
}

static void key_text(struct PP_Var *out, i32 r) { pa_input_var(out, r, 0); }
static void key_dom_code(struct PP_Var *out, i32 r) { pa_input_var(out, r, 1); }

/* PPB_TouchInputEvent 1.0 and 1.4: points in three lists, at most PA_MAX_TOUCHES each. */
static i32 touch_create(i32 instance, i32 type, double time, u32 modifiers) {
    if (instance != pa_instance || !pa_is_touch(type)) return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = type, e.time = time, e.modifiers = (i32)modifiers;
    e.touches = pa_alloc(sizeof *e.touches);
    if (!e.touches) return 0;
    pa_zero(e.touches, sizeof *e.touches);
    return pa_new_input(&e);
}

static struct pa_touches *pa_touches_of(i32 r, i32 list) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && e->touches && list >= 0 && list < 3 ? e->touches : NULL;
}

static void touch_add_point(i32 r, i32 list, const struct PP_TouchPoint *point) {
    struct pa_touches *t = pa_touches_of(r, list);
    if (!t || !point || t->count[list] >= PA_MAX_TOUCHES) return;
    struct PP_TouchPoint p = *point;
    for (u32 k = 0; k < t->count[list]; k++)
        if (t->point[list][k].id == p.id) return; /* an id once a list, as Chrome kept them */
    t->point[list][t->count[list]++] = p;
}

static i32 touch_is(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && e->touches != NULL;
}

static u32 touch_count(i32 r, i32 list) {
    struct pa_touches *t = pa_touches_of(r, list);
    return t ? t->count[list] : 0;
}

/* The point at `index` of `list` (or with `id`, when by_id), and its tilt; zeros if none. */
static void pa_touch_find(struct PP_TouchPoint *out, struct PP_FloatPoint *tilt, i32 r, i32 list, u32 key, int by_id) {
    struct pa_touches *t = pa_touches_of(r, list);
    if (out) pa_zero(out, sizeof *out);
    if (tilt) pa_zero(tilt, sizeof *tilt);
    if (!t) return;
    for (u32 k = 0; k < t->count[list]; k++) {
        if (by_id ? t->point[list][k].id != key : k != key) continue;
        if (out) *out = t->point[list][k];
        if (tilt) *tilt = t->tilt[list][k];
        return;
    }
}

static void touch_by_index(struct PP_TouchPoint *out, i32 r, i32 list, u32 index) {
    pa_touch_find(out, NULL, r, list, index, 0);
}
static void touch_by_id(struct PP_TouchPoint *out, i32 r, i32 list, u32 id) { pa_touch_find(out, NULL, r, list, id, 1); }
static void touch_tilt_by_index(struct PP_FloatPoint *out, i32 r, i32 list, u32 index) {
    pa_touch_find(NULL, out, r, list, index, 0);
}
static void touch_tilt_by_id(struct PP_FloatPoint *out, i32 r, i32 list, u32 id) {
    pa_touch_find(NULL, out, r, list, id, 1);
}

/* PPB_IMEInputEvent 1.0: composition text, its segments, the target one, the selection
   (byte offsets into the text). */
static i32 ime_create(i32 instance, i32 type, double time, const struct PP_Var *text, u32 nsegments,
                      const u32 *offsets, i32 target, u32 sel_start, u32 sel_end) {
    if (instance != pa_instance || !pa_is_ime(type) || nsegments > PA_MAX_SEGMENTS || (nsegments && !offsets))
        return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = type, e.time = time, e.target_segment = target, e.sel_start = sel_start, e.sel_end = sel_end;
    if (text && text->type == PP_VARTYPE_STRING) {
        e.text = *text;
        var_addref(&e.text);
    }
    e.segments = pa_alloc(sizeof(u32) * (nsegments + 1));
    if (!e.segments) {
        var_release(&e.text);
        return 0;
    }
    if (nsegments) copy(e.segments, offsets, sizeof(u32) * (nsegments + 1));
    e.nsegments = nsegments;
    return pa_new_input(&e);
}

static struct pa_input *pa_ime_of(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_ime(e->type) && e->segments ? e : NULL;
}

static i32 ime_is(i32 r) { return pa_ime_of(r) != NULL; }
static void ime_text(struct PP_Var *out, i32 r) {
    pa_zero(out, sizeof *out);
    if (pa_ime_of(r)) pa_input_var(out, r, 0);
}
static u32 ime_segment_number(i32 r) {
    struct pa_input *e = pa_ime_of(r);
    return e ? e->nsegments : 0;
}
static u32 ime_segment_offset(i32 r, u32 index) {
    struct pa_input *e = pa_ime_of(r);
    return e && index <= e->nsegments ? e->segments[index] : 0;
}
static i32 ime_target_segment(i32 r) {
    struct pa_input *e = pa_ime_of(r);
    return e ? e->target_segment : -1;
}
static void ime_selection(i32 r, u32 *start, u32 *end) {
    struct pa_input *e = pa_ime_of(r);
    if (start) *start = e ? e->sel_start : 0;
    if (end) *end = e ? e->sel_end : 0;
}

/* An input event from the page: type, modifiers, button, clicks, x, y, movement x, y,
   delta x, y, ticks x, y (floats), by page, key code, time (a double, two words), then
   the lengths of the character text and the DOM code, and their bytes. */
static void pa_input_from_page(u32 kind, const u8 *b, u32 n) {
    (void)kind;
    u32 w[18];
    copy(w, b, 64);
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = (i32)w[0], e.modifiers = (i32)w[1], e.button = (i32)w[2], e.click_count = (i32)w[3];
    e.position.x = (i32)w[4], e.position.y = (i32)w[5], e.movement.x = (i32)w[6], e.movement.y = (i32)w[7];
    copy(&e.delta.x, &w[8], 4), copy(&e.delta.y, &w[9], 4), copy(&e.ticks.x, &w[10], 4), copy(&e.ticks.y, &w[11], 4);
    e.by_page = w[12] != 0, e.key_code = (i32)w[13];
    copy(&e.time, &w[14], 8);
    u32 class = pa_is_mouse(e.type) ? 1 : pa_is_key(e.type) ? 2 : e.type == 5 ? 4 : pa_is_touch(e.type) ? 8
              : pa_is_ime(e.type) ? 16 : 0;
    if (!class || !(__atomic_load_n(&pa_input_classes, __ATOMIC_RELAXED) & class)) return;
    u32 at = 72;
    if (n >= 72) {
        u32 nt, nc;
        copy(&nt, b + 64, 4), copy(&nc, b + 68, 4);
        if ((u64)72 + nt + nc <= n && nt <= 1024 && nc <= 64) {
            if (nt && pa_utf8(b + 72, nt)) var_from_utf8(&e.text, (const char *)b + 72, nt);
            if (nc && pa_utf8(b + 72 + nt, nc)) var_from_utf8(&e.code, (const char *)b + 72 + nt, nc);
            at = 72 + nt + nc;
        } else {
            at = n;
        }
    }
    if (class == 8 && (e.touches = pa_alloc(sizeof *e.touches))) {
        /* Then: the three lists' counts, and each point: id, x, y, radius x, y, angle,
           pressure, tilt x, y (floats but the id). */
        pa_zero(e.touches, sizeof *e.touches);
        u32 c[3] = {0, 0, 0};
        if ((u64)at + 12 <= n) copy(c, b + at, 12);
        at += 12;
        for (int l = 0; l < 3; l++) {
            for (u32 k = 0; k < c[l] && (u64)at + 36 <= n; k++, at += 36) {
                if (e.touches->count[l] >= PA_MAX_TOUCHES) continue;
                struct PP_TouchPoint p;
                struct PP_FloatPoint tilt;
                copy(&p.id, b + at, 4), copy(&p.position, b + at + 4, 8), copy(&p.radius, b + at + 12, 8);
                copy(&p.rotation_angle, b + at + 20, 4), copy(&p.pressure, b + at + 24, 4), copy(&tilt, b + at + 28, 8);
                e.touches->tilt[l][e.touches->count[l]] = tilt;
                e.touches->point[l][e.touches->count[l]++] = p;
            }
        }
    }
    if (class == 16 && (e.segments = pa_alloc(sizeof(u32) * 2))) {
        /* The composition as one segment, the whole text, its caret at the end; its
           selection from the page (words 1 and 2 of the mouse's place). */
        u32 len = 0;
        if (e.text.type == PP_VARTYPE_STRING) var_to_utf8(&e.text, &len);
        e.segments[0] = 0, e.segments[1] = len;
        e.nsegments = len ? 1 : 0;
        e.target_segment = len ? 0 : -1;
        e.sel_start = (u32)e.position.x <= len ? (u32)e.position.x : len;
        e.sel_end = (u32)e.position.y <= len ? (u32)e.position.y : len;
        pa_zero(&e.position, sizeof e.position);
    }
    if ((class == 8 && !e.touches) || (class == 16 && !e.segments)) {
        var_release(&e.text);
        var_release(&e.code);
        return;
    }
    i32 r = pa_new_input(&e);
    if (!r) return;
    struct pa_event *ev = pa_new_event(EV_INPUT);
    ev->result = r;
    pa_push(ev);
}

static void pa_input_gone(void *data) { pa_input_free(data); }

static void pa_input_init(void) { pa_on_page(PA_FROM_INPUT, PA_FROM_INPUT, 64, pa_input_from_page); }

#define PPB_INPUTEVENT_1_0(X)                                                                 \
    X(i32, RequestInputEvents, (i32 instance, u32 classes), input_request)                    \
    X(i32, RequestFilteringInputEvents, (i32 instance, u32 classes), input_request_filtering) \
    X(void, ClearInputEventRequest, (i32 instance, u32 classes), input_clear)                 \
    X(i32, IsInputEvent, (i32 r), input_is_event)                                             \
    X(i32, GetType, (i32 r), input_get_type)                                                  \
    X(double, GetTimeStamp, (i32 r), input_get_time_stamp)                                    \
    X(u32, GetModifiers, (i32 r), input_get_modifiers)
PA_TABLE(PPB_InputEvent_1_0, ppb_input_event_1_0, PPB_INPUTEVENT_1_0)

#define PPB_MOUSEINPUTEVENT(X)                                          \
    X(i32, IsMouseInputEvent, (i32 r), mouse_is)                        \
    X(i32, GetButton, (i32 r), mouse_button)                            \
    X(void, GetPosition, (struct PP_Point *out, i32 r), mouse_position) \
    X(i32, GetClickCount, (i32 r), mouse_clicks)
#define PPB_MOUSEINPUTEVENT_1_0(X)                                                                                                                  \
    X(i32, Create, (i32 instance, i32 type, double time, u32 modifiers, i32 button, const struct PP_Point *position, i32 clicks), mouse_create_1_0) \
    PPB_MOUSEINPUTEVENT(X)
#define PPB_MOUSEINPUTEVENT_1_1(X)                                                                                                                                               \
    X(i32, Create, (i32 instance, i32 type, double time, u32 modifiers, i32 button, const struct PP_Point *position, i32 clicks, const struct PP_Point *movement), mouse_create) \
    PPB_MOUSEINPUTEVENT(X)                                                                                                                                                       \
    X(void, GetMovement, (struct PP_Point *out, i32 r), mouse_movement)
PA_TABLE(PPB_MouseInputEvent_1_0, ppb_mouse_input_event_1_0, PPB_MOUSEINPUTEVENT_1_0)
PA_TABLE(PPB_MouseInputEvent_1_1, ppb_mouse_input_event_1_1, PPB_MOUSEINPUTEVENT_1_1)


#define PPB_WHEELINPUTEVENT_1_0(X)                                                                                                                              \
    X(i32, Create, (i32 instance, double time, u32 modifiers, const struct PP_FloatPoint *delta, const struct PP_FloatPoint *ticks, i32 by_page), wheel_create) \
    X(i32, IsWheelInputEvent, (i32 r), wheel_is)                                                                                                                \
    X(void, GetDelta, (struct PP_FloatPoint *out, i32 r), wheel_delta)                                                                                          \
    X(void, GetTicks, (struct PP_FloatPoint *out, i32 r), wheel_ticks)                                                                                          \
    X(i32, GetScrollByPage, (i32 r), wheel_by_page)
PA_TABLE(PPB_WheelInputEvent_1_0, ppb_wheel_input_event_1_0, PPB_WHEELINPUTEVENT_1_0)

#define PPB_KEYBOARDINPUTEVENT(X)                                    \
    X(i32, IsKeyboardInputEvent, (i32 r), key_is)                    \
    X(u32, GetKeyCode, (i32 r), key_code)                            \
    X(void, GetCharacterText, (struct PP_Var *out, i32 r), key_text)
#define PPB_KEYBOARDINPUTEVENT_1_0(X)                                                                                             \
    X(i32, Create, (i32 instance, i32 type, double time, u32 modifiers, u32 key_code, const struct PP_Var *text), key_create_1_0) \
    PPB_KEYBOARDINPUTEVENT(X)
#define PPB_KEYBOARDINPUTEVENT_1_2(X)                                                                                                                    \
    X(i32, Create, (i32 instance, i32 type, double time, u32 modifiers, u32 key_code, const struct PP_Var *text, const struct PP_Var *code), key_create) \
    PPB_KEYBOARDINPUTEVENT(X)                                                                                                                            \
    X(void, GetCode, (struct PP_Var *out, i32 r), key_dom_code)
PA_TABLE(PPB_KeyboardInputEvent_1_0, ppb_keyboard_input_event_1_0, PPB_KEYBOARDINPUTEVENT_1_0)
PA_TABLE(PPB_KeyboardInputEvent_1_2, ppb_keyboard_input_event_1_2, PPB_KEYBOARDINPUTEVENT_1_2)


#define PPB_TOUCHINPUTEVENT_1_4(X)                                                                             \
    X(i32, Create, (i32 instance, i32 type, double time, u32 modifiers), touch_create)                         \
    X(void, AddTouchPoint, (i32 r, i32 list, const struct PP_TouchPoint *point), touch_add_point)              \
    X(i32, IsTouchInputEvent, (i32 r), touch_is)                                                               \
    X(u32, GetTouchCount, (i32 r, i32 list), touch_count)                                                      \
    X(void, GetTouchByIndex, (struct PP_TouchPoint *out, i32 r, i32 list, u32 index), touch_by_index)          \
    X(void, GetTouchById, (struct PP_TouchPoint *out, i32 r, i32 list, u32 id), touch_by_id)                   \
    X(void, GetTouchTiltByIndex, (struct PP_FloatPoint *out, i32 r, i32 list, u32 index), touch_tilt_by_index) \
    X(void, GetTouchTiltById, (struct PP_FloatPoint *out, i32 r, i32 list, u32 id), touch_tilt_by_id)
PA_TABLE(PPB_TouchInputEvent_1_4, ppb_touch_input_event_1_4, PPB_TOUCHINPUTEVENT_1_4)

#define PPB_IMEINPUTEVENT_1_0(X)                                                                                                                                            \
    X(i32, Create, (i32 instance, i32 type, double time, const struct PP_Var *text, u32 nsegments, const u32 *offsets, i32 target, u32 sel_start, u32 sel_end), ime_create) \
    X(i32, IsIMEInputEvent, (i32 r), ime_is)                                                                                                                                \
    X(void, GetText, (struct PP_Var *out, i32 r), ime_text)                                                                                                                 \
    X(u32, GetSegmentNumber, (i32 r), ime_segment_number)                                                                                                                   \
    X(u32, GetSegmentOffset, (i32 r, u32 index), ime_segment_offset)                                                                                                        \
    X(i32, GetTargetSegment, (i32 r), ime_target_segment)                                                                                                                   \
    X(void, GetSelection, (i32 r, u32 *start, u32 *end), ime_selection)
PA_TABLE(PPB_IMEInputEvent_1_0, ppb_ime_input_event_1_0, PPB_IMEINPUTEVENT_1_0)

#endif
