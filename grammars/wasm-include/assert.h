#ifndef WHITTLE_WASM_ASSERT_H_
#define WHITTLE_WASM_ASSERT_H_
#define assert(e) ((e) ? (void)0 : __builtin_trap())
#define static_assert _Static_assert
#endif
