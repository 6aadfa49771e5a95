/* HTTP through libcurl (see http.h): the one adapter file for curl/curl.h. */
#include "connectors/http.h"

#include <curl/curl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct HttpClient {
    CURL *curl;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

HttpClient *http_client_new(void)
{
    pthread_once(&global_once, global_init);
    HttpClient *c = calloc(1, sizeof *c);
    if (!c) abort();
    c->curl = curl_easy_init();
    if (!c->curl) {
        fprintf(stderr, "weir: libcurl could not be initialised\n");
        abort();
    }
    return c;
}

void http_client_free(HttpClient *c)
{
    if (!c) return;
    curl_easy_cleanup(c->curl);
    free(c);
}

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
    sb_append((StrBuf *)ud, p, size * n);
    return size * n;
}

bool http_post(HttpClient *c, const char *url, const char *const *headers, int nheaders, const char *body,
               size_t len, long timeout_s, StrBuf *resp, long *status, char *err, size_t errsize)
{
    CURL *h = c->curl;
    curl_easy_reset(h);
    struct curl_slist *hl = NULL;
    for (int i = 0; i < nheaders; i++) hl = curl_slist_append(hl, headers[i]);
    hl = curl_slist_append(hl, "Expect:");  /* no 100-continue round trip for large bodies */
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, resp);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, timeout_s > 0 ? timeout_s : 300L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(hl);
    if (rc != CURLE_OK) {
        /* the url without its query string: parameters may name a user */
        size_t n = strcspn(url, "?");
        snprintf(err, errsize, "%.*s: %s", (int)n, url, curl_easy_strerror(rc));
        return false;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    return true;
}
