/* arena.c - memory: one arena per plan, freed at once.
 *
 * An arena is a list of chunks; allocations are bumped from the newest
 * chunk and are never freed one by one.  Requests larger than a chunk get a
 * chunk of their own.
 *
 * Under AddressSanitizer every byte of a chunk that no allocation owns is
 * poisoned: the unused tail of each chunk, the padding after each
 * allocation up to the alignment, and a redzone of ARENA_REDZONE bytes
 * between allocations.  A read or write one byte past what was asked for
 * is then reported as it would be for malloc, instead of landing silently
 * in the next allocation. */
#include "generator.h"

#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FG_ARENA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FG_ARENA_ASAN 1
#endif

#ifdef FG_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#define ARENA_REDZONE 32u
#else
#define ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#define ARENA_REDZONE 0u
#endif

#define ARENA_CHUNK (64u << 10)
#define ARENA_ALIGN 16u

typedef struct arena_chunk arena_chunk;
struct arena_chunk {
    arena_chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

struct fg_arena {
    arena_chunk *head;
};

static void out_of_memory(void)
{
    fputs("fusegen: out of memory\n", stderr);
    abort();
}

fg_arena *arena_create(void)
{
    fg_arena *a = calloc(1, sizeof *a);
    if (!a)
        out_of_memory();
    return a;
}

void arena_destroy(fg_arena *a)
{
    if (!a)
        return;
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        ARENA_UNPOISON(c->data, c->size);
        free(c);
        c = next;
    }
    free(a);
}

static arena_chunk *chunk_new(size_t size)
{
    if (size > SIZE_MAX - sizeof(arena_chunk))
        out_of_memory();
    arena_chunk *c = malloc(sizeof(arena_chunk) + size);
    if (!c)
        out_of_memory();
    c->next = NULL;
    c->size = size;
    c->used = 0;
    ARENA_POISON(c->data, size);
    return c;
}

void *arena_alloc(fg_arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ARENA_ALIGN - ARENA_REDZONE)
        out_of_memory();
    size_t want = size; /* the bytes the caller may touch */
    /* the step to the next allocation: aligned, with the redzone */
    size = ((size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1)) + ARENA_REDZONE;
    arena_chunk *c = a->head;
    if (!c || c->size - c->used < size) {
        if (size > ARENA_CHUNK / 4) {
            /* A big block gets its own chunk behind the current one, so the
             * current chunk's free space stays usable. */
            arena_chunk *big = chunk_new(size);
            if (c) {
                big->next = c->next;
                c->next = big;
            } else {
                a->head = big;
            }
            big->used = size;
            ARENA_UNPOISON(big->data, want);
            memset(big->data, 0, want);
            return big->data;
        }
        c = chunk_new(ARENA_CHUNK);
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    ARENA_UNPOISON(p, want);
    memset(p, 0, want);
    return p;
}

char *arena_strndup(fg_arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(fg_arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(fg_arena *a, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return arena_strdup(a, "");
    if ((size_t)n < sizeof small)
        return arena_strndup(a, small, (size_t)n);
    char *p = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void vec_push(fg_arena *a, fg_vec *v, void *item)
{
    if (v->len == v->cap) {
        int cap = v->cap ? v->cap * 2 : 8;
        void **items = ARENA_ARRAY(a, void *, cap);
        if (v->len)
            memcpy(items, v->items, sizeof(void *) * (size_t)v->len);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->len++] = item;
}

void strbuf_putn(fg_strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *t = arena_alloc(b->a, cap);
        if (b->len)
            memcpy(t, b->s, b->len);
        b->s = t;
        b->cap = cap;
    }
    if (n)
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void strbuf_puts(fg_strbuf *b, const char *s)
{
    strbuf_putn(b, s, strlen(s));
}

void strbuf_printf(fg_strbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        strbuf_putn(b, small, (size_t)n);
        return;
    }
    char *t = arena_alloc(b->a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(t, (size_t)n + 1, fmt, ap);
    va_end(ap);
    strbuf_putn(b, t, (size_t)n);
}

char *strbuf_str(fg_strbuf *b)
{
    if (!b->s)
        strbuf_putn(b, "", 0);
    return b->s;
}
