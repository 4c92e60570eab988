#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ unsigned result;
extern "C" __global__ void mp(unsigned *data, unsigned *flag) {
  unsigned cta = __nvvm_read_ptx_sreg_ctaid_x();
  if (cta == 0) {
    *data = 42;
    __atomic_fetch_add(flag, 1, __ATOMIC_ACQ_REL);
  } else {
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {
    }
    result = *data;
  }
}
