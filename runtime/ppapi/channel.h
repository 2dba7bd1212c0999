/*
 * The page channel's record kinds, PA_TO_* and PA_FROM_*, numbered from channel.def (the
 * one list; pnacl.js's constants are written from it too, and tests/site.rs checks that
 * the three agree).
 */
#ifndef PA_CHANNEL_H
#define PA_CHANNEL_H

#define PA_TO(name) PA_TO_##name,
#define PA_FROM(name)
enum { PA_TO_NONE, /* kinds count from 1 */
#include "channel.def"
       PA_TO_END };
#undef PA_TO
#undef PA_FROM
#define PA_TO(name)
#define PA_FROM(name) PA_FROM_##name,
enum { PA_FROM_NONE,
#include "channel.def"
       PA_FROM_END };
#undef PA_TO
#undef PA_FROM

#endif
