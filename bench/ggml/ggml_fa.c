// Times one ggml_flash_attn_ext graph on the CPU: F32 Q, K and V, one head, one sequence,
// scale 1/sqrt(d), precision F32, an F16 mask of 0 and -inf when causal. Not built by FlashStep
// (ggml is not a dependency): bench/ggml/README.md says how to build it against a ggml checkout.
//
//   ggml_fa N D THREADS REPEATS [causal]   prints every compute's time and the best, in ms
//   ggml_fa --check                         N = 256, d = 64: largest difference from a
//                                           double-precision attention written here
#include "ggml.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// The same normal-ish numbers on every run: a sum of uniforms from a fixed LCG.
static float next_value(unsigned long long* s) {
  float acc = 0;
  for (int k = 0; k < 4; ++k) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    acc += (float)((*s >> 40) & 0xFFFFFF) / 16777216.0f - 0.5f;
  }
  return acc * 1.7320508f;  // variance 1
}

int main(int argc, char** argv) {
  const int check = argc == 2 && strcmp(argv[1], "--check") == 0;
  if (!check && argc < 5) {
    fprintf(stderr, "usage: ggml_fa N D THREADS REPEATS [causal] | ggml_fa --check\n");
    return 2;
  }
  const int N = check ? 256 : atoi(argv[1]), d = check ? 64 : atoi(argv[2]);
  const int threads = check ? 2 : atoi(argv[3]), repeats = check ? 1 : atoi(argv[4]);
  const int causal = !check && argc > 5 && strcmp(argv[5], "causal") == 0;
  if (N <= 0 || d <= 0 || threads <= 0 || repeats <= 0) {
    fprintf(stderr, "ggml_fa: N, D, THREADS and REPEATS must be positive\n");
    return 2;
  }
  const int n_mask = N;  // mask rows: one per query
  const size_t bytes = (size_t)3 * N * d * 4 + (size_t)N * n_mask * 2 + (size_t)N * d * 4 + 64 * 1024 * 1024;
  struct ggml_init_params params = {bytes, NULL, false};
  struct ggml_context* ctx = ggml_init(params);
  struct ggml_tensor* q = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, d, N, 1, 1);
  struct ggml_tensor* k = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, d, N, 1, 1);
  struct ggml_tensor* v = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, d, N, 1, 1);
  struct ggml_tensor* mask = NULL;
  unsigned long long seed = 1;
  for (struct ggml_tensor* t = q; t; t = t == q ? k : t == k ? v : NULL)
    for (int i = 0; i < N * d; ++i) ((float*)t->data)[i] = next_value(&seed);
  if (causal) {
    mask = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, N, n_mask, 1, 1);
    ggml_fp16_t* m = (ggml_fp16_t*)mask->data;
    for (int i = 0; i < n_mask; ++i)
      for (int j = 0; j < N; ++j) m[(size_t)i * N + j] = ggml_fp32_to_fp16(j <= i ? 0.0f : -INFINITY);
  }
  const float scale = 1.0f / sqrtf((float)d);
  struct ggml_tensor* out = ggml_flash_attn_ext(ctx, q, k, v, mask, scale, 0.0f, 0.0f);
  ggml_flash_attn_ext_set_prec(out, GGML_PREC_F32);
  struct ggml_cgraph* graph = ggml_new_graph(ctx);
  ggml_build_forward_expand(graph, out);
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = now_ms();
    ggml_graph_compute_with_ctx(ctx, graph, threads);
    const double t = now_ms() - t0;
    if (!check) printf("%.3f\n", t);
    if (t < best) best = t;
  }
  if (!check) {
    printf("best %.3f ms\n", best);
  } else {  // out is [d, heads = 1, N]: row i of O at out + i·d
    const float *Q = (const float*)q->data, *K = (const float*)k->data, *V = (const float*)v->data;
    double worst = 0;
    for (int i = 0; i < N; ++i) {
      double s[256], m = -INFINITY, l = 0;
      for (int j = 0; j < N; ++j) {
        s[j] = 0;
        for (int c = 0; c < d; ++c) s[j] += (double)Q[i * d + c] * K[j * d + c];
        s[j] *= scale;
        if (s[j] > m) m = s[j];
      }
      for (int j = 0; j < N; ++j) l += exp(s[j] - m);
      for (int c = 0; c < d; ++c) {
        double o = 0;
        for (int j = 0; j < N; ++j) o += exp(s[j] - m) / l * V[j * d + c];
        const double diff = fabs(o - ((const float*)out->data)[i * d + c]);
        if (diff > worst) worst = diff;
      }
    }
    printf("largest difference from the double-precision attention at N = 256, d = 64: %.3g\n", worst);
  }
  ggml_free(ctx);
  return 0;
}
