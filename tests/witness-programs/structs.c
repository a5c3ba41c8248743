/* Structures: bit-fields, unions, copies, structs by value, functions with many arguments. */
#include <stdio.h>

struct bits { signed a : 5; unsigned b : 3; signed c : 12; unsigned d : 20; };
struct pt { int x, y; long z; };
union pun { unsigned u; unsigned char c[4]; };

static struct pt add(struct pt p, struct pt q) {
    struct pt r = { p.x + q.x, p.y - q.y, p.z * q.z };
    return r;
}

static long many(int a, int b, int c, int d, int e, int f, int g, int h, long i) {
    return a - b + c * d - e + f * g - h + i;
}

int main(void) {
    struct bits bf = { -7, 5, -500, 1000000 };
    struct pt p = { 1, 2, 3 }, q = { -4, 5, 6 }, r;
    union pun u;
    int i;
    for (i = 0; i < 3; i++) {
        bf.a += 3; bf.b++; bf.c -= 500; bf.d += 77777;
        printf("%d %u %d %u\n", bf.a, bf.b, bf.c, bf.d);
    }
    r = add(p, q);
    r = add(r, r);
    printf("%d %d %ld\n", r.x, r.y, r.z);
    u.u = 0x01020304;
    printf("%d %d\n", u.c[0], u.c[3]);
    printf("%ld\n", many(1, 2, 3, 4, 5, 6, 7, 8, 9L));
    return 0;
}
