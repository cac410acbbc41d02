// A kernel that keeps the compute engine busy until the host says stop: it spins on a flag in
// mapped pinned memory, which the host writes (test_smi_live.cpp reads the status file while it
// runs: the running kernel's name and a compute utilisation of 100%).
__global__ void smi_spin(volatile int* stop) {
  while (*stop == 0) {
  }
}

void smi_spin_launch(volatile int* stop) { smi_spin<<<1, 1>>>(stop); }
