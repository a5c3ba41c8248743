/* Integer arithmetic across the integer types: promotions, conversions, division, shifts. */
#include <stdio.h>

static signed char sc[6] = {-128, -77, -1, 0, 55, 127};
static short ss[5] = {-32768, -1234, -1, 300, 32767};
static unsigned short us[4] = {0, 1, 40000, 65535};

static long mix(int a, unsigned b, long c) {
    return (a / 3) * (long)b - c % 7 + (a < b) + (c > -1L);
}

int main(void) {
    long acc = 0;
    int i;
    for (i = 0; i < 6; i++) {
        int v = sc[i];
        acc = acc * 31 + v + (v >> 2) + (v % 5) - (v / 3);
        printf("sc %d %d %d %d\n", v, v >> 3, v / 4, (unsigned char)v);
    }
    for (i = 0; i < 5; i++) {
        short s = ss[i];
        long l = s * 70000L;
        acc ^= l + (s >> 1) + (short)(s * 3);
        printf("ss %d %ld %d\n", s, l, (short)(s + 1000));
    }
    for (i = 0; i < 4; i++) {
        unsigned short u = us[i];
        unsigned q = (unsigned)u * u;
        int p = u < 1000 ? u * u : -(int)u; /* u promotes to int */
        acc += q - p;
        printf("us %u %u\n", u, q);
    }
    printf("mix %ld %ld\n", mix(-100, 7u, -13L), mix(99, 3000000000u, 1L << 40));
    printf("div %d %d %d %d\n", -7 / 2, -7 % 2, 7 / -2, 7 % -2);
    printf("acc %ld\n", acc);
    return 0;
}
