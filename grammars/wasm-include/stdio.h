#ifndef WHITTLE_WASM_STDIO_H_
#define WHITTLE_WASM_STDIO_H_
#include <stdint.h>
typedef struct FILE FILE;
#define stdout ((FILE *)0)
#define stderr ((FILE *)1)
int fprintf(FILE *restrict, const char *restrict, ...);
int snprintf(char *restrict, size_t, const char *restrict, ...);
#endif
