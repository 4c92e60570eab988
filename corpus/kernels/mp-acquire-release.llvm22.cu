#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ unsigned result;
extern "C" __global__ void mp(unsigned *data, unsigned *flag) {
  unsigned cta = __nvvm_read_ptx_sreg_ctaid_x();
  if (cta == 0) {
    *data = 42;
    __scoped_atomic_store_n(flag, 1, __ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
  } else {
    while (__scoped_atomic_load_n(flag, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE) == 0) {
    }
    result = *data;
  }
}
