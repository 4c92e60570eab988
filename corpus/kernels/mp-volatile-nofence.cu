#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ unsigned result;
extern "C" __global__ void mp(unsigned *data, volatile unsigned *flag) {
  unsigned cta = __nvvm_read_ptx_sreg_ctaid_x();
  if (cta == 0) {
    *data = 42;
    *flag = 1;
  } else {
    while (*flag == 0) {
    }
    result = *data;
  }
}
