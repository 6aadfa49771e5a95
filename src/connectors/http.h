/* A small HTTP client for the services weir talks to (ClickHouse today): one POST per
 * call with a body, extra headers and a timeout. The only file that includes libcurl.
 * Credentials travel in headers the caller gives; nothing here logs or prints a
 * request, so a password never reaches a message. */
#ifndef WEIR_CONNECTORS_HTTP_H
#define WEIR_CONNECTORS_HTTP_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct HttpClient HttpClient;

/* A client keeps one connection open between calls (keep-alive). Never fails; free
 * with http_client_free. */
HttpClient *http_client_new(void);
void http_client_free(HttpClient *c);

/* POST body (len bytes) to url with headers ("Name: value", nheaders of them) and a
 * timeout in seconds. The response body is appended to *resp and the status code put
 * in *status. Returns false, with a message in err that names the url without its
 * query string, when no HTTP answer came (connection refused, timeout). */
bool http_post(HttpClient *c, const char *url, const char *const *headers, int nheaders, const char *body,
               size_t len, long timeout_s, StrBuf *resp, long *status, char *err, size_t errsize);

#endif
