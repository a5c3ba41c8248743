// The program the playground opens with: small, and gcc -Wall warns on it.
export const SAMPLE_PROGRAM = `#include <stdio.h>

/* Reduce me: keep gcc's warning "makes integer from pointer without a cast". */
struct point { int x, y; };

static int area(struct point a, struct point b) {
  return (b.x - a.x) * (b.y - a.y);
}

int main(void) {
  struct point a = {1, 2}, b = {4, 6};
  int p = "not a number";
  printf("%d %d\\n", area(a, b), p);
  return 0;
}
`;

// The pair the playground opens with in pairwise mode: the seed is the program above with
// the bug's trigger undone, so the two differ in one place among a few harmless ones.
export const SAMPLE_SEED = SAMPLE_PROGRAM.replace('int p = "not a number";', 'int p = 42;')
  .replace('{1, 2}', '{0, 2}')
  .replace('(b.x - a.x)', '(b.x + a.x)');
