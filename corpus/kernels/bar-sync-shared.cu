#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
extern "C" __global__ void k(unsigned *out) {
  __shared__ unsigned s[2];
  unsigned tid = __nvvm_read_ptx_sreg_tid_x();
  unsigned cta = __nvvm_read_ptx_sreg_ctaid_x();
  s[tid] = tid + 1;
  __nvvm_bar_sync(0);
  out[cta * 2 + tid] = s[1 - tid];
}
