/* The few declarations of ppapi/c that the C test plugins here need (race.c, cursor.c),
   as the SDK's headers give them, and the start of a plugin: PPAPI_MAIN. */
#ifndef TEST_PP_H
#define TEST_PP_H

#include <stdint.h>
#include <string.h>

#include <irt.h>

typedef int32_t PP_Instance, PP_Resource, PP_Module;
typedef const void *(*PPB_GetInterface)(const char *name);
struct PP_Var {
    int32_t type, padding;
    union {
        int32_t as_int;
        double as_double;
        int64_t as_id;
    } value;
};
struct PP_Size {
    int32_t width, height;
};
struct PP_ImageDataDesc {
    int32_t format;
    struct PP_Size size;
    int32_t stride;
};
struct PP_CompletionCallback {
    void (*func)(void *user_data, int32_t result);
    void *user_data;
    int32_t flags;
};
struct PPB_Core {
    void (*AddRefResource)(PP_Resource);
    void (*ReleaseResource)(PP_Resource);
    double (*GetTime)(void);
    double (*GetTimeTicks)(void);
    void (*CallOnMainThread)(int32_t delay_ms, struct PP_CompletionCallback, int32_t result);
    int32_t (*IsMainThread)(void);
};
struct PPB_ImageData {
    int32_t (*GetNativeImageDataFormat)(void);
    int32_t (*IsImageDataFormatSupported)(int32_t);
    PP_Resource (*Create)(PP_Instance, int32_t format, const struct PP_Size *, int32_t init);
    int32_t (*IsImageData)(PP_Resource);
    int32_t (*Describe)(PP_Resource, struct PP_ImageDataDesc *);
};
struct PPB_Graphics2D {
    PP_Resource (*Create)(PP_Instance, const struct PP_Size *, int32_t is_always_opaque);
};
struct PPB_Messaging {
    void (*PostMessage)(PP_Instance, struct PP_Var);
};
struct PPP_Instance {
    int32_t (*DidCreate)(PP_Instance, uint32_t, const char *[], const char *[]);
    void (*DidDestroy)(PP_Instance);
    void (*DidChangeView)(PP_Instance, PP_Resource);
    void (*DidChangeFocus)(PP_Instance, int32_t);
    int32_t (*HandleDocumentLoad)(PP_Instance, PP_Resource);
};
struct PP_StartFunctions {
    int32_t (*PPP_InitializeModule)(PP_Module, PPB_GetInterface);
    void (*PPP_ShutdownModule)(void);
    const void *(*PPP_GetInterface)(const char *);
};
struct nacl_irt_ppapihook {
    int (*ppapi_start)(const struct PP_StartFunctions *);
    void (*ppapi_register_thread_creator)(const void *);
};

struct PP_Point {
    int32_t x, y;
};
struct PPB_MouseCursor {
    int32_t (*SetCursor)(PP_Instance, int32_t type, PP_Resource image, const struct PP_Point *hot_spot);
};

struct PPP_Messaging {
    void (*HandleMessage)(PP_Instance, struct PP_Var);
};

/* The rest of a plugin whose work is its DidCreate: the other PPP_Instance functions
   (nothing to do), PPP_Messaging's HandleMessage if it takes messages (else NULL),
   PPP_GetInterface, and main, the plugin's start with its PPP_InitializeModule. */
#define PPAPI_PLUGIN_WITH_MESSAGES(did_create, initialize, handle_message)                      \
    static void did_destroy(PP_Instance i) { (void)i; }                                        \
    static void did_change_view(PP_Instance i, PP_Resource v) { (void)i, (void)v; }            \
    static void did_change_focus(PP_Instance i, int32_t f) { (void)i, (void)f; }               \
    static int32_t handle_document_load(PP_Instance i, PP_Resource l) { return (void)i, (void)l, 0; } \
    static const struct PPP_Instance ppp_instance = {did_create, did_destroy, did_change_view,  \
                                                     did_change_focus, handle_document_load};   \
    static const struct PPP_Messaging ppp_messaging = {handle_message};                        \
    static const void *get_interface(const char *name) {                                       \
        if (ppp_messaging.HandleMessage && !strcmp(name, "PPP_Messaging;1.0")) return &ppp_messaging; \
        return strcmp(name, "PPP_Instance;1.1") ? NULL : &ppp_instance;                        \
    }                                                                                          \
    static void shutdown_module(void) {}                                                       \
    int main(void) {                                                                           \
        static const struct PP_StartFunctions start = {initialize, shutdown_module, get_interface}; \
        struct nacl_irt_ppapihook hook;                                                        \
        if (__nacl_irt_query("nacl-irt-ppapihook-0.1", &hook, sizeof hook) != sizeof hook)    \
            return 1;                                                                          \
        return hook.ppapi_start(&start);                                                       \
    }
#define PPAPI_PLUGIN(did_create, initialize) PPAPI_PLUGIN_WITH_MESSAGES(did_create, initialize, NULL)

#endif
