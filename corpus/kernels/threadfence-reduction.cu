#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
// The threadFenceReduction pattern of the CUDA samples, one thread per CTA:
// each CTA writes its partial sum, __threadfence(), takes a ticket with
// atomicInc; the CTA that draws the last ticket reads every partial sum and
// writes the total. NBLOCKS is the grid size (a constant, so that the
// last CTA's loop over the partial sums is unrolled).
#define NBLOCKS 3
__device__ unsigned retirementCount;
__device__ unsigned total;
extern "C" __global__ void reduce(volatile unsigned *partial) {
  unsigned cta = __nvvm_read_ptx_sreg_ctaid_x();
  partial[cta] = cta + 1; // this CTA's partial sum
  __nvvm_membar_gl();
  unsigned ticket = __nvvm_atom_inc_gen_ui(&retirementCount, NBLOCKS);
  if (ticket == NBLOCKS - 1) {
    unsigned sum = 0;
#pragma unroll
    for (int i = 0; i < NBLOCKS; ++i)
      sum += partial[i];
    total = sum;
    retirementCount = 0;
  }
}
