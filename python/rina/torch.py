# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""PyTorch integration: a DDP communication hook that allreduces gradient
buckets with Rina while backward goes on.

    ddp = torch.nn.parallel.DistributedDataParallel(model)
    comm = rina.Communicator.from_env()
    ddp.register_comm_hook(comm, rina.torch.allreduce_hook)

DDP still needs a torch.distributed process group (e.g. gloo) for its
set-up broadcasts; the gradients go through Rina. Each bucket's allreduce
starts when DDP hands it over; its Future is completed by librina's
progress thread (set_result) when the call finishes, and DDP waits for
all of them at the end of backward.
"""
import torch

__all__ = ["allreduce_hook", "allreduce"]


def allreduce_hook(comm, bucket):
    """DDP comm hook: average bucket.buffer() over the ranks with Rina.

    Register with ddp.register_comm_hook(comm, allreduce_hook), comm a
    rina.Communicator. Returns a torch.futures.Future of the averaged
    bucket (its exception a rina.RinaError if the call failed)."""
    return allreduce(comm, bucket.buffer(), op="avg")


def allreduce(comm, tensor, op="sum"):
    """Start an in-place allreduce of a CPU tensor; a torch.futures.Future
    whose value is the tensor."""
    fut = torch.futures.Future()

    def done(req):
        if req.exception is not None:
            fut.set_exception(req.exception)
        else:
            fut.set_result(tensor)

    try:
        comm.allreduce_async(tensor, op=op, callback=done)
    except Exception as e:
        fut.set_exception(e)
    return fut
