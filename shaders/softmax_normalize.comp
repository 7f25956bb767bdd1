#version 430
// The last pass of every softmax, one invocation per element: each y_i needs only x_i and the
// row's final (m, l), so all n of them run in parallel.
//   MODE_NAIVE  y_i = exp(x_i) / l
//   MODE_SAFE   y_i = exp(x_i - m) / l
//   MODE_LOG    log y_i = x_i - LSE
// X and Y are (rows, n) row-major; stats is (rows, 4): m, l, LSE, unused; trace (rows, n)
// holds the e_i = exp(...) each invocation computed.
#define MODE_NAIVE 0
#define MODE_SAFE 1
#define MODE_LOG 2

layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer XBuf { float X[]; };
layout(std430, binding = 1) readonly buffer StatsBuf { float stats[]; };
layout(std430, binding = 2) writeonly buffer YBuf { float Y[]; };
layout(std430, binding = 3) writeonly buffer TraceBuf { float trace[]; };
uniform int rows;
uniform int n;
uniform float s;

void main() {
  uint total = uint(rows) * uint(n);
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint k = gl_GlobalInvocationID.x; k < total; k += stride) {
    int row = int(k / uint(n));
    float z = X[k];
#if SCALED
    z = R(z * s);
#endif
#if MODE == MODE_LOG
    Y[k] = R(z - stats[row * 4 + 2]);
#else
#if MODE == MODE_NAIVE
    float e = exp_r(z);
#else
    float e = exp_diff(z, stats[row * 4]);
#endif
    Y[k] = softmax_div(e, stats[row * 4 + 1]);
#if TRACE
    trace[k] = e;
#endif
#endif
  }
}
