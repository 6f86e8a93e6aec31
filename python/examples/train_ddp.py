#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Data-parallel training of a small MLP with PyTorch DDP over the
torch.distributed backend "rina" (no Gloo group at all).

    rina-run --topo 2x2 -- /usr/bin/python3 python/examples/train_ddp.py

Nothing in it is Rina-specific but the two lines marked RINA: torch's
env:// rendezvous uses the MASTER_ADDR, RANK, WORLD_SIZE... that rina-run
(or torchrun, or the recipes for mpirun/srun in python/README.md) sets,
and the backend meets its peers through torch's store. --hook keeps a
Gloo group and sends the gradients through rina.torch.allreduce_hook
instead (needs RINA_JOB); --gloo is plain Gloo DDP.
"""
import argparse

import torch
import torch.distributed as dist

import rina
import rina.torch				# RINA: registers "rina"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=32, help="per rank")
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--gloo", action="store_true",
                    help="plain Gloo DDP")
    ap.add_argument("--hook", action="store_true",
                    help="Gloo DDP, gradients through the Rina hook")
    args = ap.parse_args()

    backend = "gloo" if args.gloo or args.hook else "rina"
    dist.init_process_group(backend)		# RINA: "rina"
    rank = dist.get_rank()
    torch.manual_seed(0)			# the same initial model
    model = torch.nn.Sequential(
        torch.nn.Linear(64, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    comm = None
    if args.hook:
        comm = rina.Communicator.from_env()
        ddp.register_comm_hook(comm, rina.torch.allreduce_hook)
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
    if rank == 0 and backend == "rina":
        st = rina.torch.stats()
        print("rina backend: %d calls, %d retransmits"
              % (st["calls"], st["retransmits"]))
    elif rank == 0 and comm:
        st = comm.stats()
        print("rina hook: %d allreduce calls, %d retransmits, transport %s"
              % (st["calls"], st["retransmits"], comm.transport))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
