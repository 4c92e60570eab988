#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ unsigned result;
__device__ __attribute__((noinline)) unsigned publish(volatile unsigned *data, volatile unsigned *flag, unsigned v) {
  *data = v;
  __nvvm_membar_gl();
  *flag = 1;
  return v + 1;
}
__device__ __attribute__((noinline)) void wait(volatile unsigned *flag) {
  while (*flag == 0) {}
}
extern "C" __global__ void mp(unsigned *data, unsigned *flag) {
  if (__nvvm_read_ptx_sreg_ctaid_x() == 0) {
    result = publish(data, flag, 42);
  } else {
    wait(flag);
    __nvvm_membar_gl();
    result = *(volatile unsigned *)data;
  }
}
