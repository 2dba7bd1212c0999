/*
 * PPB_Core;1.0: references to resources, the clocks, the main thread.
 */
#ifndef PA_PPB_CORE_H
#define PA_PPB_CORE_H

#include "loop.h"

static double core_get_time(void) { return (double)pa_now_ns(0) / 1e9; }
static double core_get_time_ticks(void) { return (double)pa_now_ns(1) / 1e9; }

#define PPB_CORE_1_0(X)                                                                                                     \
    X(void, AddRefResource, (i32 r), core_addref_resource)                                                                  \
    X(void, ReleaseResource, (i32 r), core_release_resource)                                                                \
    X(double, GetTime, (void), core_get_time)                                                                               \
    X(double, GetTimeTicks, (void), core_get_time_ticks)                                                                    \
    X(void, CallOnMainThread, (i32 delay_ms, const struct PP_CompletionCallback *cb, i32 result), core_call_on_main_thread) \
    X(i32, IsMainThread, (void), core_is_main_thread)
PA_TABLE(PPB_Core_1_0, ppb_core_1_0, PPB_CORE_1_0)

#endif
