#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
// A spinlock guarding a plain read-modify-write of `counter`: every CTA's
// thread 0 takes the lock with atomicCAS, increments, releases with atomicExch,
// each side fenced with __threadfence() (membar.gl), as the CUDA guide's lock.
__device__ unsigned counter;
extern "C" __global__ void lock_inc(int *lock) {
  if (__nvvm_read_ptx_sreg_tid_x() == 0) {
    while (__nvvm_atom_cas_gen_i(lock, 0, 1) != 0) {
    }
    __nvvm_membar_gl();
    counter = counter + 1;
    __nvvm_membar_gl();
    __nvvm_atom_xchg_gen_i(lock, 0);
  }
}
