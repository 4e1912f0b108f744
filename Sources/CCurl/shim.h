/* libcurl; curl_easy_setopt/getinfo and curl_multi_setopt are variadic, so each argument type gets a wrapper. */
#ifndef RELAY_CCURL_SHIM_H
#define RELAY_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode relay_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode relay_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode relay_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode relay_curl_setopt_write(CURL *h, CURLoption o, curl_write_callback cb) { return curl_easy_setopt(h, o, cb); }
static inline CURLcode relay_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode relay_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode relay_curl_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode relay_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode relay_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

/* The HTTP client's address check: CURLOPT_OPENSOCKETFUNCTION sees every address before connect. */
static inline CURLcode relay_curl_setopt_opensocket(CURL *h, curl_opensocket_callback cb) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, cb);
}
/* The address inside curl_sockaddr, in place: the struct's `addr` member is followed by room for an IPv6 address. */
static inline const struct sockaddr *relay_curl_sockaddr_address(const struct curl_sockaddr *a) { return &a->addr; }

/* The client loop drives libcurl through its socket interface (epoll, not curl_multi_poll). */
static inline CURLMcode relay_curl_multi_setopt_pointer(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode relay_curl_multi_setopt_socket(CURLM *m, curl_socket_callback cb) {
    return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, cb);
}
static inline CURLMcode relay_curl_multi_setopt_timer(CURLM *m, curl_multi_timer_callback cb) {
    return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, cb);
}

/* The client's share handle: TLS sessions shared by all its easy handles, behind its own locks. */
static inline CURLSHcode relay_curl_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }
static inline CURLSHcode relay_curl_share_setopt_pointer(CURLSH *s, CURLSHoption o, void *v) { return curl_share_setopt(s, o, v); }
static inline CURLSHcode relay_curl_share_setopt_lock(CURLSH *s, curl_lock_function f) { return curl_share_setopt(s, CURLSHOPT_LOCKFUNC, f); }
static inline CURLSHcode relay_curl_share_setopt_unlock(CURLSH *s, curl_unlock_function f) { return curl_share_setopt(s, CURLSHOPT_UNLOCKFUNC, f); }
#endif
