#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
// threadFenceReduction with the acquire fence (threadfence-reduction-acquire.cu),
// one thread per CTA, but the last CTA's loop over the partial sums runs to
// gridDim.x, which clang cannot unroll: the PTX walks the array through a
// register-held address (ld [%rd]; add %rd, %rd, 4) in a loop.
__device__ unsigned retirementCount;
__device__ unsigned total;
extern "C" __global__ void reduce(volatile unsigned *partial) {
  unsigned cta = __nvvm_read_ptx_sreg_ctaid_x();
  unsigned n = __nvvm_read_ptx_sreg_nctaid_x();
  partial[cta] = cta + 1; // this CTA's partial sum
  __nvvm_membar_gl();
  unsigned ticket = __nvvm_atom_inc_gen_ui(&retirementCount, n);
  if (ticket == n - 1) {
    __nvvm_membar_gl(); // the acquire side (8.8)
    unsigned sum = 0;
#pragma nounroll
    for (unsigned i = 0; i < n; ++i)
      sum += partial[i];
    total = sum;
    retirementCount = 0;
  }
}
