/*
 * fake_cupti.c - build/libfake_cupti.so: a stand-in libcupti with the nine functions the
 * collector resolves, so that test_collector can drive the collector's real buffer path (request,
 * completion, record walk, handle cache, dropped counts, exit flush, fork) without a GPU. Records
 * are queued by the test (fake_cupti_queue) and handed to the collector's callbacks like CUPTI
 * does: on fake_cupti_deliver() or on cuptiActivityFlushAll(). Each record takes a 256-byte,
 * 8-aligned slot of the buffer (CUPTI's own layout is internal; only GetNextRecord reads it).
 *   FAKE_CUPTI_REFUSE=1      cuptiActivityEnable fails (a driver or profiler refusing)
 *   FAKE_CUPTI_FLUSH_HANG=1  cuptiActivityFlushAll never returns (a flush that cannot finish)
 */
#include <cupti.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_SLOT 256
#define FAKE_MAX 64
_Static_assert(sizeof(CUpti_ActivityKernel10) <= FAKE_SLOT && FAKE_SLOT % 8 == 0, "slot");

static CUpti_BuffersCallbackRequestFunc req;
static CUpti_BuffersCallbackCompleteFunc done;
static unsigned char queue[FAKE_MAX][FAKE_SLOT];
static size_t queued;
static size_t dropped;

void fake_cupti_queue(const void *record, size_t size) {
    if (queued < FAKE_MAX && size <= FAKE_SLOT) memcpy(queue[queued++], record, size);
}
void fake_cupti_drop(size_t n) { dropped += n; }

/* Hands the queued records to the collector in one buffer, as CUPTI's worker does. */
int fake_cupti_deliver(void) {
    if (req == NULL || done == NULL) return -1;
    uint8_t *buf = NULL;
    size_t size = 0, max = 0;
    req(&buf, &size, &max);
    if (buf == NULL || size < queued * FAKE_SLOT || ((uintptr_t)buf & 7) != 0) return -1;
    size_t valid = queued * FAKE_SLOT;
    memcpy(buf, queue, valid);
    queued = 0;
    done(NULL, 0, buf, size, valid);
    return 0;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult r, const char **s) {
    *s = r == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "FAKE_CUPTI_ERROR";
    return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *v) {
    *v = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r, CUpti_BuffersCallbackCompleteFunc c) {
    req = r;
    done = c;
    return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind k) {
    (void)k;
    return getenv("FAKE_CUPTI_REFUSE") ? CUPTI_ERROR_NOT_INITIALIZED : CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind k) {
    (void)k;
    return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record) {
    if (buffer == NULL) return CUPTI_ERROR_INVALID_PARAMETER;
    uint8_t *next = *record == NULL ? buffer : (uint8_t *)*record + FAKE_SLOT;
    if ((size_t)(next - buffer) + FAKE_SLOT > valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = (CUpti_Activity *)(void *)next;
    return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
    (void)flag;
    if (getenv("FAKE_CUPTI_FLUSH_HANG"))
        for (;;) pause();
    if (queued) fake_cupti_deliver();
    return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t ms) {
    (void)ms;
    return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *n) {
    (void)ctx;
    (void)stream;
    *n = dropped;
    dropped = 0;
    return CUPTI_SUCCESS;
}
