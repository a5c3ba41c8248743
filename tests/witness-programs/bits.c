/* Bit manipulation on 32- and 64-bit values: masks, rotations, counting. */
#include <stdio.h>
#include <stdint.h>

static uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static int popcount64(uint64_t x) {
    int n = 0;
    while (x) { x &= x - 1; n++; }
    return n;
}

int main(void) {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    uint32_t w = 0xDEADBEEF;
    int64_t s = -1234567890123LL;
    int i;
    for (i = 1; i < 6; i++) {
        h = rotl64(h, i * 7) ^ (h >> 33) ^ (h << 40);
        w = rotl32(w, i * 5) + (w >> 16);
        printf("%d %016llx %08x %d\n", i, (unsigned long long)h, w, popcount64(h));
    }
    printf("%lld %lld %lld\n", (long long)(s >> 40), (long long)((uint64_t)s << 3), (long long)(s & 0xFFFFFFFF));
    printf("%llx %llx\n", (unsigned long long)(h & 0xFFFFFFFF), (unsigned long long)(h | 0xFFFF0000));
    printf("%x %x %x\n", w & 0x80000000, ~w, w ^ 0xFFFFFFFF);
    printf("%d %d\n", (int)(h >> 63), (int)((int64_t)h >> 60));
    return 0;
}
