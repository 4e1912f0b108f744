/* libnghttp2 (Debian's libnghttp2-14): the HTTP/2 framing layer under the direct client's H2Session.
 * Everything the relay calls is a plain function or an enum, so the header is all it needs. */
#ifndef RELAY_CNGHTTP2_SHIM_H
#define RELAY_CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#endif
