/* binarytrees: the Computer Language Benchmarks Game's binary trees (with an item in
   each node, checked as item + left - right), allocated and freed with malloc, written
   for scripts/bench as the native reference of run/binarytrees.pexe. */
#include <stdio.h>
#include <stdlib.h>

struct node { struct node *left, *right; long item; };

static struct node *new_node(struct node *left, struct node *right, long item) {
    struct node *t = malloc(sizeof *t);
    t->left = left;
    t->right = right;
    t->item = item;
    return t;
}

/* Both subtrees first, then their node (as the pexe does): the order of the allocations
   decides how free coalesces, and so most of the time. */
static struct node *tree(long item, unsigned depth) {
    if (depth > 0) {
        struct node *left = tree(2 * item - 1, depth - 1);
        return new_node(left, tree(2 * item, depth - 1), item);
    }
    return new_node(NULL, NULL, item);
}

static long check(const struct node *t) {
    return t->left ? t->item + check(t->left) - check(t->right) : t->item;
}

static void delete_tree(struct node *t) {
    if (t->left) {
        delete_tree(t->left);
        delete_tree(t->right);
    }
    free(t);
}

int main(int argc, char **argv) {
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10, min_depth = 4;
    unsigned max_depth = min_depth + 2 > n ? min_depth + 2 : n;
    struct node *stretch = tree(0, max_depth + 1);
    printf("stretch tree of depth %u\t check: %li\n", max_depth + 1, check(stretch));
    delete_tree(stretch);
    struct node *long_lived = tree(0, max_depth);
    for (unsigned depth = min_depth; depth <= max_depth; depth += 2) {
        long iterations = 1L << (max_depth - depth + min_depth), sum = 0;
        for (long i = 1; i <= iterations; i++) {
            struct node *t = tree(i, depth);
            sum += check(t);
            delete_tree(t);
            t = tree(-i, depth);
            sum += check(t);
            delete_tree(t);
        }
        printf("%li\t trees of depth %u\t check: %li\n", iterations * 2, depth, sum);
    }
    printf("long lived tree of depth %u\t check: %li\n", max_depth, check(long_lived));
    return 0;
}
