/* arena.c - memory: one arena per plan, freed at once.
 *
 * An arena is a list of chunks; allocations are bumped from the newest
 * chunk and are never freed one by one.  Requests larger than a chunk get a
 * chunk of their own. */
#include "fusegen.h"

#include <stdlib.h>
#include <string.h>

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
    return c;
}

void *arena_alloc(fg_arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ARENA_ALIGN)
        out_of_memory();
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
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
            memset(big->data, 0, size);
            return big->data;
        }
        c = chunk_new(ARENA_CHUNK);
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
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
