#ifndef WHITTLE_WASM_STDLIB_H_
#define WHITTLE_WASM_STDLIB_H_
#include <stdint.h>
#ifndef NULL
#define NULL ((void *)0)
#endif
void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void free(void *);
__attribute__((noreturn)) void abort(void);
#endif
