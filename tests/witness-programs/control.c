/* Control flow: switch (dense and sparse), loops with break and continue, goto, ternaries. */
#include <stdio.h>

static int classify(int x) {
    switch (x) {
    case 0: return 10;
    case 1: return 11;
    case 2: return 12;
    case 3: return 13;
    case 4: return 14;
    case 5: return 15;
    case 6: return 16;
    case 7: return 17;
    case 8: return 18;
    case 9: return 19;
    case 100: return 20;
    case -5: return 21;
    default: return -1;
    }
}

int main(void) {
    int i, j, total = 0;
    for (i = -6; i < 12; i++) {
        if (i == 2)
            continue;
        total += classify(i);
        if (total > 150)
            break;
    }
    printf("total %d %d\n", total, classify(100));
    i = 0;
    do {
        i += 3;
        if (i % 2) continue;
        total -= i;
    } while (i < 20);
    j = 0;
again:
    j++;
    if (j < 5) goto again;
    printf("%d %d %d\n", i, j, total);
    for (i = 0; i < 4; i++)
        printf("%d %d %d\n", i ? i * 2 : -1, i > 1 && total < 0, i == 3 || j == 0);
    return 0;
}
