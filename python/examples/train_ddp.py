#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Data-parallel training of a small MLP with PyTorch DDP, gradients
averaged by Rina through rina.torch.allreduce_hook.

    rina-run --topo 2x2 -- /usr/bin/python3 python/examples/train_ddp.py

Nothing in it is Rina-specific but the two lines marked RINA: torch's
env:// rendezvous uses the MASTER_ADDR, RANK, WORLD_SIZE... that rina-run
(or torchrun, or the recipe for mpirun/srun in python/README.md) sets,
and the communicator reads RINA_JOB and RINA_RANK (or RANK).
"""
import argparse

import torch
import torch.distributed as dist

import rina
import rina.torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=32, help="per rank")
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--gloo", action="store_true",
                    help="let Gloo allreduce the gradients (no hook)")
    args = ap.parse_args()

    dist.init_process_group("gloo")		# DDP's own set-up traffic
    rank = dist.get_rank()
    torch.manual_seed(0)			# the same initial model
    model = torch.nn.Sequential(
        torch.nn.Linear(64, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    if not args.gloo:
        comm = rina.Communicator.from_env()			# RINA
        ddp.register_comm_hook(comm, rina.torch.allreduce_hook)	# RINA
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(1000 + rank)	# this rank's data
    w_true = torch.randn(64, 10, generator=torch.Generator().manual_seed(7))
    for step in range(args.steps):
        x = torch.randn(args.batch, 64, generator=gen)
        y = (x @ w_true).argmax(dim=1)
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        opt.zero_grad()
        loss.backward()		# buckets go to Rina as they fill
        opt.step()
        if rank == 0 and step % 5 == 0:
            print("step %3d loss %.4f" % (step, loss.item()), flush=True)
    if rank == 0 and not args.gloo:
        st = comm.stats()
        print("rina: %d allreduce calls, %d retransmits, transport %s"
              % (st["calls"], st["retransmits"], comm.transport))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
