/* Floating point: arithmetic, conversions to and from integers, constant expressions. */
#include <stdio.h>

static double poly(double x) { return ((2.5 * x - 1.25) * x + 0.5) * x - 3.0; }

int main(void) {
    float f = 1.0f / 3.0f;
    double d = 10.0 / 4.0 - 0.125 * 3;
    double sum = 0;
    int i;
    for (i = -3; i <= 3; i++) {
        double p = poly(i * 0.75);
        sum += p;
        printf("%d %.6f %d %ld\n", i, p, (int)p, (long)(p * 1000));
    }
    printf("%.6f %.6f %.6f\n", f * 3, d, sum);
    printf("%d %u %.3f\n", (int)-2.75, (unsigned)3.99e9, (double)(float)1e10);
    printf("%.6f %.6f\n", 1e-3 * 4096.0, -(1.5 / 0.25));
    printf("%d %d %d\n", 0.1 + 0.2 == 0.3, 2.0 > 1.5, -0.0 == 0.0);
    return 0;
}
