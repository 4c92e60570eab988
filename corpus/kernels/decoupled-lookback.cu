#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
// Decoupled look-back (Merrill and Garland's single-pass scan), one thread per
// CTA: CTA i publishes its aggregate (agg[i], then flag[i] = 1), looks back at
// its predecessors (spinning while a flag is 0; flag 2: an inclusive prefix,
// done; flag 1: add the aggregate and look further back), then publishes its
// inclusive prefix (incl[i], then flag[i] = 2). Values are published before
// their flag with __threadfence() in between, read after the flag with
// __threadfence() in between. NBLOCKS is a constant so that the look-back
// is unrolled.
#define NBLOCKS 3
extern "C" __global__ void scan(unsigned *out, volatile unsigned *flag,
                                volatile unsigned *agg, volatile unsigned *incl) {
  int cta = __nvvm_read_ptx_sreg_ctaid_x();
  unsigned a = cta + 1; // this CTA's aggregate
  agg[cta] = a;
  __nvvm_membar_gl();
  flag[cta] = 1;
  unsigned excl = 0;
#pragma unroll
  for (int j = 1; j < NBLOCKS; ++j) {
    int p = cta - j;
    if (p < 0)
      break;
    unsigned f;
    while ((f = flag[p]) == 0) {
    }
    __nvvm_membar_gl();
    if (f == 2) {
      excl += incl[p];
      break;
    }
    excl += agg[p];
  }
  incl[cta] = excl + a;
  __nvvm_membar_gl();
  flag[cta] = 2;
  out[cta] = excl + a;
}
