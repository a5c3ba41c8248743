/* The preprocessor: function-like and variadic macros, # and ##, conditional compilation. */
#include <stdio.h>

#define SQ(x) ((x) * (x))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define STR(x) #x
#define XSTR(x) STR(x)
#define CAT(a, b) a##b
#define SUM(...) sum_of(__VA_ARGS__, -1)
#define LEVEL (2 * 3 + 1)

static int sum_of(int first, ...) { return first; }

#if LEVEL > 6 && defined(SQ)
static const int level = LEVEL;
#else
static const int level = -1;
#endif

int main(void) {
    int CAT(var, 1) = 5, CAT(var, 2) = 9;
    printf("%d %d %d\n", SQ(var1 + 1), MAX(var1, var2), level);
    printf("%s %s %s\n", STR(a + b), XSTR(LEVEL), XSTR(CAT(x, y)));
    printf("%d %d\n", SUM(4, 5, 6), MAX(SQ(2), SQ(-3)));
#ifdef UNDEFINED_THING
    printf("never\n");
#elif LEVEL % 2
    printf("odd level\n");
#endif
    return 0;
}
