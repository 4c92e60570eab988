#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
// A one-shot grid barrier in the style of cooperative groups' grid.sync():
// each CTA publishes data[cta], fences, arrives with atomicAdd on `arrived`,
// spins (volatile) until all gridDim.x CTAs arrived, fences, and reads the
// next CTA's value.
__device__ unsigned arrived;
extern "C" __global__ void grid_barrier(unsigned *data, unsigned *seen) {
  unsigned cta = __nvvm_read_ptx_sreg_ctaid_x();
  unsigned n = __nvvm_read_ptx_sreg_nctaid_x();
  data[cta] = cta + 1;
  __nvvm_membar_gl();
  __nvvm_atom_add_gen_i((int *)&arrived, 1);
  while (*(volatile unsigned *)&arrived < n) {
  }
  __nvvm_membar_gl();
  seen[cta] = data[(cta + 1) % n];
}
