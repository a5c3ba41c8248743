/* Pointers and arrays: arithmetic, sorting, recursion, two-dimensional arrays. */
#include <stdio.h>

static void sort(int *a, int n) {
    int i, j;
    for (i = 1; i < n; i++) {
        int v = a[i];
        for (j = i - 1; j >= 0 && a[j] > v; j--)
            a[j + 1] = a[j];
        a[j + 1] = v;
    }
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(void) {
    int a[10] = {9, -3, 7, 0, 12, -8, 5, 5, 1, -1};
    int m[3][4];
    int *p, *end = a + 10, i, j;
    long sum = 0;
    sort(a, 10);
    for (p = a; p < end; p++)
        printf("%d ", *p);
    printf("\n%ld %d\n", (long)(end - a), fib(15));
    for (i = 0; i < 3; i++)
        for (j = 0; j < 4; j++)
            m[i][j] = i * 4 - j;
    p = &m[0][0];
    for (i = 0; i < 12; i++)
        sum += p[i] * (i + 1);
    printf("%ld %d %d\n", sum, *(*(m + 2) + 1), (int)(&m[2][3] - &m[0][0]));
    return 0;
}
