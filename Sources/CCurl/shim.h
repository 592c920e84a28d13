// libcurl's options and information are read and set through variadic
// functions (curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt), which
// Swift cannot call: these wrappers fix the type of the argument, one per kind
// of value, and one per callback signature so that a callback of the wrong
// shape does not compile. SwitchboardWebhookDelivery is the only user.
#ifndef SWITCHBOARD_CCURL_SHIM_H
#define SWITCHBOARD_CCURL_SHIM_H
#include <curl/curl.h>
// The socket constants (SOCK_STREAM, SOCK_CLOEXEC) and getaddrinfo that the
// connection-time and creation-time address checks use: Swift's Glibc module
// leaves some of them out.
#include <netdb.h>
#include <sys/socket.h>

static inline CURLcode sb_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sb_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

// libcurl copies strings it is given (since 7.17), so the Swift string may go
// away after the call; CURLOPT_POSTFIELDS is the exception, and goes through
// the pointer setter below, at memory the caller keeps until the request ends.
static inline CURLcode sb_curl_setopt_str(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sb_curl_setopt_ptr(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sb_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sb_curl_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sb_curl_setopt_opensocket_function(CURL *handle, curl_opensocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, value);
}

static inline CURLcode sb_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode sb_curl_getinfo_ptr(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode sb_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

#endif
