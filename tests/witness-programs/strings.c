/* Characters and strings: escapes, literals in every base, a small hash. */
#include <stdio.h>
#include <string.h>

static unsigned hash(const char *s) {
    unsigned h = 5381;
    while (*s) h = h * 33 + (unsigned char)*s++;
    return h;
}

int main(void) {
    const char *words[] = {"tab\there", "hex\x41\x42", "oct\101\060", "quote\"\\", "bell\a"};
    char buf[64];
    int i;
    for (i = 0; i < 5; i++) {
        printf("%d %u %u\n", i, (unsigned)strlen(words[i]), hash(words[i]));
    }
    strcpy(buf, words[2]);
    strcat(buf, "+");
    printf("%s %d %d %d\n", buf, '\n', '\'', '\177');
    printf("%d %d %d %d\n", 0755, 0x1F, 010 + 1, 0);
    printf("%d %d\n", (int)sizeof("abc"), (int)sizeof(L"ab"));
    return 0;
}
