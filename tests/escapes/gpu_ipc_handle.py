# escape: open the judge's device memory through a CUDA IPC handle and read it
# op: aten::silu
# expect: hack_static
# without-static: runtime_error
# device: cuda (test_a_cuda_ipc_handle_of_the_judge_opens_nothing fills the handle)
import torch

HANDLE = @HANDLE@


def silu(self):
    device, handle, size, offset = HANDLE[0], HANDLE[1], HANDLE[2], HANDLE[3]
    storage = torch.UntypedStorage._new_shared_cuda(device, handle, size, offset, *HANDLE[4:])
    values = torch.empty(0, dtype=torch.float32, device=self.device).set_(storage)
    raise RuntimeError(f"read the judge's memory: {values[:4].tolist()}")


def silu_out(self, *, out):
    return silu(self)
