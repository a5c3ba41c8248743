#ifndef WHITTLE_WASM_WCTYPE_H_
#define WHITTLE_WASM_WCTYPE_H_
#include <stdbool.h>
/* ASCII-only classification: what the grammar scanners need to find delimiters and spaces. */
typedef int wint_t;
static inline bool iswspace(wint_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static inline bool iswdigit(wint_t c) { return c >= '0' && c <= '9'; }
static inline bool iswalpha(wint_t c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; }
static inline bool iswalnum(wint_t c) { return iswalpha(c) || iswdigit(c); }
static inline bool iswupper(wint_t c) { return c >= 'A' && c <= 'Z'; }
static inline bool iswlower(wint_t c) { return c >= 'a' && c <= 'z'; }
static inline wint_t towlower(wint_t c) { return iswupper(c) ? c + 32 : c; }
static inline wint_t towupper(wint_t c) { return iswlower(c) ? c - 32 : c; }
#endif
