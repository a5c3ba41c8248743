#ifndef WHITTLE_WASM_STRING_H_
#define WHITTLE_WASM_STRING_H_
#include <stdint.h>
int memcmp(const void *, const void *, size_t);
void *memcpy(void *restrict, const void *restrict, size_t);
void *memmove(void *, const void *, size_t);
void *memset(void *, int, size_t);
int strncmp(const char *, const char *, size_t);
size_t strlen(const char *);
#endif
