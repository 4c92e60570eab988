#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ unsigned result;
extern "C" __global__ void mp(unsigned *data, volatile unsigned *flag) {
  unsigned tid = __nvvm_read_ptx_sreg_tid_x();
  unsigned cta = __nvvm_read_ptx_sreg_ctaid_x();
  if (tid == 0 && cta == 0) {
    *(volatile unsigned *)data = 42;
    __nvvm_membar_gl();
    *flag = 1;
  } else if (cta == 1) {
    while (*flag == 0) {
    }
    __nvvm_membar_gl();
    result = *(volatile unsigned *)data;
  }
}
