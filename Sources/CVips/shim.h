// libvips' operations take their options as NULL-terminated variadic lists and
// VIPS_INIT is a macro; Swift can call neither, so these wrappers fix the options
// the gateway's thumbnailer uses (SwitchboardThumbnails is the only user).
#ifndef SWITCHBOARD_CVIPS_SHIM_H
#define SWITCHBOARD_CVIPS_SHIM_H
#include <vips/vips.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

// The only loaders the gateway lets libvips run: attachments are sniffed as one of
// these four types, and every other loader (TIFF, SVG, PDF, HEIF, ImageMagick, ...)
// is attack surface a chat never needs.
static const char *const cvips_allowed_loaders[] = {
    "jpegload_buffer", "pngload_buffer", "gifload_buffer", "webpload_buffer",
};

static inline int cvips_is_allowed_nickname(const char *nickname) {
    if (nickname == NULL) return 0;
    for (size_t i = 0; i < sizeof cvips_allowed_loaders / sizeof cvips_allowed_loaders[0]; i++) {
        if (strcmp(nickname, cvips_allowed_loaders[i]) == 0) return 1;
    }
    return 0;
}

// vips_operation_block_set takes GType names, which differ between builds (libpng's
// VipsForeignLoadPngBuffer, libspng's VipsForeignLoadSpngBuffer): unblock by nickname.
static void *cvips_unblock_allowed(GType type, void *unused) {
    (void)unused;
    if (cvips_is_allowed_nickname(vips_nickname_find(type))) vips_operation_block_set(g_type_name(type), FALSE);
    return NULL;
}

// Some loaders (libpng's header reader, for one) say why they fail only through glib's
// log as a warning; the log handler adds them to libvips' error text, which the Swift
// side takes after every call, so that a refusal says why and nothing goes to stderr.
static void cvips_log_to_error(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)level; (void)data;
    vips_error(domain != NULL ? domain : "VIPS", "%s", message != NULL ? message : "");
}

// Progress notes ("thumbnailing 1234 bytes of data", "selected loader is ...").
static void cvips_log_drop(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

// Once per process. No operation cache (it would keep decoded images and open
// buffers alive between uploads), one worker thread per pipeline (the calling
// thread's call is the unit of parallelism), no loader but the four. libvips'
// warnings go to its error text, not to stderr (one line per hostile upload).
static inline int cvips_start(void) {
    if (VIPS_INIT("switchboard") != 0) return -1;
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_type_map_all(g_type_from_name("VipsForeignLoad"), cvips_unblock_allowed, NULL);
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, cvips_log_to_error, NULL);
    g_log_set_handler("VIPS", G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG, cvips_log_drop, NULL);
    return 0;
}

// The header only: libvips images are lazy, so this reads width, height, bands
// and metadata without decoding a pixel. The buffer must outlive the image.
static inline VipsImage *cvips_image_new_from_buffer(const void *bytes, size_t count) {
    return vips_image_new_from_buffer(bytes, count, "", NULL);
}

// The first page (GIF, WebP) shrunk to fit max_side x max_side, never enlarged,
// turned upright by its EXIF orientation, colours moved to sRGB when it carries
// a profile. JPEG and WebP shrink while they decode. A truncated or damaged file
// is an error, not a grey-padded thumbnail: libvips 8.14's thumbnail_buffer does
// not hand its own fail_on to the loader, so it goes in the loader's option string.
// The pipeline is lazy: it decodes (and reads `bytes`) only when the result is saved.
static inline VipsImage *cvips_thumbnail_buffer(const void *bytes, size_t count, int max_side) {
    VipsImage *out = NULL;
    if (vips_thumbnail_buffer((void *)bytes, count, &out, max_side, "height", max_side, "size", VIPS_SIZE_DOWN,
            "export_profile", "srgb", "option_string", "fail_on=truncated", NULL) != 0) {
        return NULL;
    }
    return out;
}

// Savers with every piece of metadata stripped (EXIF with its GPS position, XMP,
// IPTC, ICC, comments): libvips 8.14 names that `strip` (8.15 calls it keep=none).
static inline int cvips_jpegsave_buffer(VipsImage *image, int quality, void **bytes, size_t *count) {
    return vips_jpegsave_buffer(image, bytes, count, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

static inline int cvips_pngsave_buffer(VipsImage *image, void **bytes, size_t *count) {
    return vips_pngsave_buffer(image, bytes, count, "strip", TRUE, "bitdepth", 8, "compression", 6, NULL);
}

// Whether the loader libvips would pick for these bytes is one of the four.
// `loader` is what vips_foreign_find_load_buffer answers: a GType name.
static inline int cvips_loader_allowed(const char *loader) {
    return loader != NULL && cvips_is_allowed_nickname(vips_nickname_find(g_type_from_name(loader)));
}

static inline int cvips_has_field(const VipsImage *image, const char *name) {
    return vips_image_get_typeof(image, name) != 0;
}

// glibc keeps what libvips' worker threads free in their arenas, resident; this gives it back.
static inline void cvips_release_free_memory(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static inline void cvips_unref(VipsImage *image) { g_object_unref(image); }
static inline void cvips_free(void *memory) { g_free(memory); }
#endif
