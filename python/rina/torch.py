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
    whose value is the tensor, or which raises the rina.RinaError.

    A failure reaches DDP's C++ reducer as an error of the Future (raised
    in a then() callback): Future.set_exception in torch 1.13 only stores
    the exception as the value, which the reducer cannot read."""
    done = torch.futures.Future()

    def finish(req):
        done.set_result(req)

    try:
        comm.allreduce_async(tensor, op=op, callback=finish)
    except Exception as e:		# not started: fail the same way
        done.set_result(_Failed(e))
    return done.then(lambda fut: _unwrap(fut.value(), tensor))


class _Failed:
    def __init__(self, exc):
        self.exception = exc


def _unwrap(req, tensor):
    if req.exception is not None:
        raise req.exception
    return tensor
