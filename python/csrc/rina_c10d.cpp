// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * rina_c10d: the torch.distributed backend "rina" (torch 1.13's
 * c10d::ProcessGroup API) over librina. python/rina/torch.py does the
 * rendezvous through torch's c10d Store and builds the job text; this
 * extension owns the communicator and turns each collective into one
 * librina call (rina_iallreduce, rina_ibroadcast, rina_iallgather,
 * rina_ireduce_scatter, rina_ibarrier) started at once, in issue order.
 * librina's progress thread completes the call's Work and its
 * c10::ivalue::Future (the tensors) from the call's completion callback.
 *
 * How each allreduce is done (python/README.md, "The rina backend"):
 * float32, bfloat16, float16 SUM/AVG and int32 SUM/MAX on librina's own
 * path; MAX/MIN of floats and MIN of int32 as an int32 MAX of
 * order-preserving integer keys (exact); everything else (float64,
 * int64, PRODUCT, bitwise ops) as an allgather of every rank's tensor
 * and the same local reduction, in rank order, on every rank (exact in
 * the dtype's own arithmetic, N times the bytes).
 *
 * A process group's rank (torch's) need not be its rank in the job: a
 * job file a ToR knows numbers the ranks its own way, and torchrun
 * numbers them in its rendezvous. ring_of maps the one to the other;
 * broadcast's root, allgather's and reduce_scatter's blocks are torch's
 * ranks, librina's are the job's.
 */
#include <torch/extension.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <rina.h>

namespace {

using c10d::OpType;
using c10d::ReduceOp;
using Tensors = std::vector<at::Tensor>;

[[noreturn]] void fail(const std::string &what)
{
	throw std::runtime_error("rina backend: " + what);
}

std::string op_name(const ReduceOp &op)
{
	switch (op) {
	case ReduceOp::SUM: return "SUM";
	case ReduceOp::AVG: return "AVG";
	case ReduceOp::PRODUCT: return "PRODUCT";
	case ReduceOp::MIN: return "MIN";
	case ReduceOp::MAX: return "MAX";
	case ReduceOp::BAND: return "BAND";
	case ReduceOp::BOR: return "BOR";
	case ReduceOp::BXOR: return "BXOR";
	case ReduceOp::PREMUL_SUM: return "PREMUL_SUM";
	default: return "op " + std::to_string((int)op);
	}
}

class RinaWork : public c10d::Work {
public:
	RinaWork(int rank, OpType type, Tensors outputs)
		: c10d::Work(rank, type), outputs_(std::move(outputs)),
		  future_(c10::make_intrusive<c10::ivalue::Future>(
			  c10::ListType::create(c10::TensorType::get())))
	{
	}

	c10::intrusive_ptr<c10::ivalue::Future> getFuture() override
	{
		return future_;
	}

	Tensors result() override
	{
		return outputs_;
	}

	/* librina's progress thread, once the call is over */
	void complete(int result, const std::string &msg)
	{
		std::exception_ptr e;

		if (!result) {
			try {
				if (post)
					post();
			} catch (...) {
				e = std::current_exception();
			}
		} else {
			e = std::make_exception_ptr(std::runtime_error(
				"rina backend: " + what + " failed: " +
				rina_strerror(result) + ": " + msg));
		}
		post = nullptr;
		keep.clear();
		finish(e);
		if (e)
			future_->setError(e);
		else
			future_->markCompleted(c10::IValue(outputs_));
	}

	std::string what;
	std::function<void()> post;	/* copy out, decode, reduce */
	Tensors keep;			/* buffers librina uses */

private:
	Tensors outputs_;
	c10::intrusive_ptr<c10::ivalue::Future> future_;
};

void on_done(rina_request_t *req, int result, void *arg)
{
	auto *holder = static_cast<c10::intrusive_ptr<RinaWork> *>(arg);
	std::string msg;
	int res = 0;

	if (result) {
		rina_test(req, &res);		/* the message -> this thread */
		msg = rina_last_error();
	}
	rina_request_free(req);
	(*holder)->complete(result, msg);
	delete holder;
}

using Start = std::function<int(rina_callback_t, void *, rina_request_t **)>;

bool rina_dtype_of(at::ScalarType t, enum rina_dtype *dt)
{
	switch (t) {
	case at::kFloat: *dt = RINA_FLOAT32; return true;
	case at::kBFloat16: *dt = RINA_BFLOAT16; return true;
	case at::kHalf: *dt = RINA_FLOAT16; return true;
	case at::kInt: *dt = RINA_INT32; return true;
	default: return false;
	}
}

bool reducible(at::ScalarType t)
{
	return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf ||
	       t == at::kDouble || t == at::kInt || t == at::kLong;
}

bool is_float(at::ScalarType t)
{
	return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf ||
	       t == at::kDouble;
}

/* the int32 key of each element: same order as the values, MIN reversed */
at::Tensor to_keys(const at::Tensor &buf, bool min)
{
	at::Tensor k;

	switch (buf.scalar_type()) {
	case at::kFloat:
		k = buf.view(at::kInt).clone();
		k = at::where(k >= 0, k, at::bitwise_xor(k, 0x7fffffff));
		break;
	case at::kHalf:
	case at::kBFloat16:
		k = buf.view(at::kShort).to(at::kInt);
		k = at::where(k >= 0, k, at::bitwise_xor(k, 0x7fff));
		break;
	default:	/* int32 */
		k = buf.clone();
		break;
	}
	if (min)
		k = at::bitwise_not(k);
	return k.contiguous();
}

at::Tensor from_keys(at::Tensor k, at::ScalarType t, bool min)
{
	if (min)
		k = at::bitwise_not(k);
	switch (t) {
	case at::kFloat:
		k = at::where(k >= 0, k, at::bitwise_xor(k, 0x7fffffff));
		return k.view(at::kFloat);
	case at::kHalf:
	case at::kBFloat16:
		k = at::where(k >= 0, k, at::bitwise_xor(k, 0x7fff));
		return k.to(at::kShort).view(t);
	default:
		return k;
	}
}

/*
 * rows of g ([N, n], the job's rank order) reduced in torch's rank order
 * (row_of[t]: torch rank t's row), as every rank does it
 */
at::Tensor reduce_rows(const at::Tensor &g, const ReduceOp &op,
		       const std::vector<int> &row_of)
{
	at::Tensor acc = g[row_of[0]].clone();

	for (int64_t r = 1; r < g.size(0); r++) {
		const at::Tensor &x = g[row_of[r]];

		switch (op) {
		case ReduceOp::SUM:
		case ReduceOp::AVG: acc.add_(x); break;
		case ReduceOp::PRODUCT: acc.mul_(x); break;
		case ReduceOp::MIN: acc = at::minimum(acc, x); break;
		case ReduceOp::MAX: acc = at::maximum(acc, x); break;
		case ReduceOp::BAND: acc.bitwise_and_(x); break;
		case ReduceOp::BOR: acc.bitwise_or_(x); break;
		case ReduceOp::BXOR: acc.bitwise_xor_(x); break;
		default: fail("unreachable reduce op");
		}
	}
	if (op == ReduceOp::AVG)
		acc.div_(g.size(0));
	return acc;
}

enum class Path { NATIVE, KEYS, GATHER };

class ProcessGroupRina : public c10d::ProcessGroup {
public:
	ProcessGroupRina(int rank, int size, const std::string &job_text,
			 const std::string &transport, uint32_t timeout_ms,
			 const std::vector<int> &ring_of)
		: c10d::ProcessGroup(rank, size), ring_of_(ring_of),
		  torch_of_(size), timeout_ms_(timeout_ms)
	{
		struct rina_config cfg = RINA_CONFIG_INIT;

		set_ranks(ring_of);
		cfg.rank = ring_of_[rank];
		cfg.job_text = job_text.c_str();
		cfg.transport = transport.c_str();
		cfg.timeout_ms = timeout_ms;
		if (rina_comm_init(&comm_, &cfg))
			fail(std::string("rank ") + std::to_string(rank) +
			     ": rina_comm_init: " + rina_last_error());
		if (rina_comm_size(comm_) != size) {
			int n = rina_comm_size(comm_);

			rina_comm_destroy(comm_);
			comm_ = nullptr;
			fail("the job has " + std::to_string(n) +
			     " ranks, the process group " +
			     std::to_string(size));
		}
	}

	~ProcessGroupRina() override
	{
		shutdown();
	}

	/* leave the ring; pending calls complete (queued ones fail) */
	void shutdown()
	{
		rina_comm_t *c;

		{
			std::lock_guard<std::mutex> g(mu_);
			c = comm_;
			comm_ = nullptr;
		}
		if (!c)
			return;
		if (Py_IsInitialized() && PyGILState_Check()) {
			pybind11::gil_scoped_release nogil;
			rina_comm_destroy(c);
		} else {
			rina_comm_destroy(c);
		}
	}

	uintptr_t handle() const
	{
		return reinterpret_cast<uintptr_t>(comm_);
	}

	/* rina_config.timeout_ms as given (0: the job's) */
	uint32_t timeout_ms() const
	{
		return timeout_ms_;
	}

	const std::string getBackendName() const override
	{
		return "rina";
	}

	c10::intrusive_ptr<c10d::Work> broadcast(
		Tensors &tensors, const c10d::BroadcastOptions &opts) override
	{
		at::Tensor t = one(tensors, "broadcast");

		check_any(t, "broadcast");
		if (opts.rootTensor != 0)
			fail("broadcast: rootTensor must be 0");
		if (opts.rootRank < 0 || opts.rootRank >= size_)
			fail("broadcast: root " +
			     std::to_string(opts.rootRank) +
			     " is not a rank of the group");
		int root = ring_of_[opts.rootRank];
		at::Tensor buf = t.contiguous();
		auto w = work(OpType::BROADCAST, {t}, "broadcast");
		w->keep = {buf};
		if (!buf.is_same(t))
			w->post = [t, buf]() mutable { t.copy_(buf); };
		size_t bytes = buf.numel() * buf.element_size();
		void *p = buf.data_ptr();
		return issue(w, [=](rina_callback_t cb, void *a,
				    rina_request_t **r) {
			return rina_ibroadcast(p, bytes, root, comm_, cb, a, r);
		});
	}

	c10::intrusive_ptr<c10d::Work> allreduce(
		Tensors &tensors, const c10d::AllreduceOptions &opts) override
	{
		at::Tensor t = one(tensors, "allreduce");
		const ReduceOp op = opts.reduceOp;
		enum rina_dtype dt;
		enum rina_redop rop;

		check_reducible(t, "allreduce");
		Path path = plan(t.scalar_type(), op, &dt, &rop, "allreduce");
		at::Tensor buf = t.contiguous();
		auto w = work(OpType::ALLREDUCE, {t}, "allreduce");
		size_t n = buf.numel();

		if (path == Path::NATIVE) {
			w->keep = {buf};
			if (!buf.is_same(t))
				w->post = [t, buf]() mutable { t.copy_(buf); };
			void *p = buf.data_ptr();
			return issue(w, [=](rina_callback_t cb, void *a,
					    rina_request_t **r) {
				return rina_iallreduce(p, p, n, dt, rop, comm_,
						       cb, a, r);
			});
		}
		if (path == Path::KEYS) {
			bool min = op == ReduceOp::MIN;
			at::Tensor k = to_keys(buf, min);
			auto st = t.scalar_type();

			w->keep = {k};
			w->post = [t, k, st, min]() mutable {
				t.copy_(from_keys(k, st, min).view(t.sizes()));
			};
			void *p = k.data_ptr();
			return issue(w, [=](rina_callback_t cb, void *a,
					    rina_request_t **r) {
				return rina_iallreduce(p, p, n, RINA_INT32,
						       RINA_MAX, comm_, cb, a,
						       r);
			});
		}
		at::Tensor g = at::empty({size_, (int64_t)n}, buf.options());
		std::vector<int> ring_of = ring_of_;

		w->keep = {buf, g};
		w->post = [t, g, op, ring_of]() mutable {
			t.copy_(reduce_rows(g, op, ring_of).view(t.sizes()));
		};
		size_t bytes = n * buf.element_size();
		const void *src = buf.data_ptr();
		void *dst = g.data_ptr();
		return issue(w, [=](rina_callback_t cb, void *a,
				    rina_request_t **r) {
			return rina_iallgather(src, dst, bytes, comm_, cb, a, r);
		});
	}

	c10::intrusive_ptr<c10d::Work> allgather(
		std::vector<Tensors> &outputs, Tensors &inputs,
		const c10d::AllgatherOptions &) override
	{
		at::Tensor t = one(inputs, "allgather");

		check_any(t, "allgather");
		if (outputs.size() != 1 || (int)outputs[0].size() != size_)
			fail("allgather: expected one list of " +
			     std::to_string(size_) + " output tensors");
		for (auto &o : outputs[0]) {
			check_any(o, "allgather");
			if (o.numel() != t.numel() ||
			    o.scalar_type() != t.scalar_type())
				fail("allgather: every output tensor must have "
				     "the input's size and dtype");
		}
		at::Tensor buf = t.contiguous();
		at::Tensor flat = at::empty({size_ * t.numel()}, t.options());
		auto outs = outputs[0];
		auto w = work(OpType::ALLGATHER, outs, "allgather");
		int64_t n = t.numel();
		std::vector<int> ring_of = ring_of_;

		w->keep = {buf, flat};
		w->post = [outs, flat, n, ring_of]() mutable {
			for (size_t i = 0; i < outs.size(); i++)
				outs[i].copy_(flat.narrow(0, ring_of[i] * n, n)
						      .view(outs[i].sizes()));
		};
		return gather(w, buf, flat);
	}

	c10::intrusive_ptr<c10d::Work> _allgather_base(
		at::Tensor &out, at::Tensor &in,
		const c10d::AllgatherOptions &) override
	{
		check_any(in, "_allgather_base");
		check_any(out, "_allgather_base");
		if (out.numel() != size_ * in.numel() ||
		    out.scalar_type() != in.scalar_type())
			fail("_allgather_base: the output must hold " +
			     std::to_string(size_) +
			     " times the input's elements, of its dtype");
		at::Tensor buf = in.contiguous();
		at::Tensor flat = out.is_contiguous() && identity_ ? out :
				  at::empty({out.numel()}, out.options());
		auto w = work(OpType::_ALLGATHER_BASE, {out}, "allgather");

		w->keep = {buf, flat};
		if (!flat.is_same(out)) {
			at::Tensor o = out.view({-1});
			int64_t n = in.numel();
			std::vector<int> ring_of = ring_of_;

			w->post = [o, flat, n, ring_of]() mutable {
				for (size_t i = 0; i < ring_of.size(); i++)
					o.narrow(0, i * n, n).copy_(flat.narrow(
						0, ring_of[i] * n, n));
			};
		}
		return gather(w, buf, flat);
	}

	c10::intrusive_ptr<c10d::Work> reduce_scatter(
		Tensors &outputs, std::vector<Tensors> &inputs,
		const c10d::ReduceScatterOptions &opts) override
	{
		at::Tensor out = one(outputs, "reduce_scatter");

		if (inputs.size() != 1 || (int)inputs[0].size() != size_)
			fail("reduce_scatter: expected one list of " +
			     std::to_string(size_) + " input tensors");
		Tensors flat;
		for (auto &i : inputs[0]) {
			check_reducible(i, "reduce_scatter");
			if (i.numel() != out.numel() ||
			    i.scalar_type() != out.scalar_type())
				fail("reduce_scatter: every input tensor must "
				     "have the output's size and dtype");
			flat.push_back(i.reshape({-1}));
		}
		at::Tensor in = at::cat(flat);
		return scatter(out, in, opts.reduceOp, OpType::REDUCE_SCATTER);
	}

	c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
		at::Tensor &out, at::Tensor &in,
		const c10d::ReduceScatterOptions &opts) override
	{
		check_reducible(in, "_reduce_scatter_base");
		if (in.numel() != size_ * out.numel() ||
		    out.scalar_type() != in.scalar_type())
			fail("_reduce_scatter_base: the input must hold " +
			     std::to_string(size_) +
			     " times the output's elements, of its dtype");
		return scatter(out, in, opts.reduceOp,
			       OpType::_REDUCE_SCATTER_BASE);
	}

	c10::intrusive_ptr<c10d::Work> barrier(
		const c10d::BarrierOptions &) override
	{
		auto w = work(OpType::BARRIER, {}, "barrier");
		return issue(w, [=](rina_callback_t cb, void *a,
				    rina_request_t **r) {
			return rina_ibarrier(comm_, cb, a, r);
		});
	}

#define RINA_UNSUPPORTED(name, ...)					\
	c10::intrusive_ptr<c10d::Work> name(__VA_ARGS__) override	\
	{								\
		unsupported(#name);					\
	}
	RINA_UNSUPPORTED(allreduce_coalesced, Tensors &,
			 const c10d::AllreduceCoalescedOptions &)
	RINA_UNSUPPORTED(reduce, Tensors &, const c10d::ReduceOptions &)
	RINA_UNSUPPORTED(allgather_coalesced, std::vector<Tensors> &,
			 Tensors &, const c10d::AllgatherOptions &)
	RINA_UNSUPPORTED(gather, std::vector<Tensors> &, Tensors &,
			 const c10d::GatherOptions &)
	RINA_UNSUPPORTED(scatter, Tensors &, std::vector<Tensors> &,
			 const c10d::ScatterOptions &)
	RINA_UNSUPPORTED(alltoall_base, at::Tensor &, at::Tensor &,
			 std::vector<int64_t> &, std::vector<int64_t> &,
			 const c10d::AllToAllOptions &)
	RINA_UNSUPPORTED(alltoall, Tensors &, Tensors &,
			 const c10d::AllToAllOptions &)
	RINA_UNSUPPORTED(send, Tensors &, int, int)
	RINA_UNSUPPORTED(recv, Tensors &, int, int)
	RINA_UNSUPPORTED(recvAnysource, Tensors &, int)
#undef RINA_UNSUPPORTED

	void monitoredBarrier(const c10d::BarrierOptions &, bool) override
	{
		unsupported("monitoredBarrier");
	}

private:
	[[noreturn]] static void unsupported(const char *name)
	{
		throw std::runtime_error(std::string(name) +
					 " is not supported by the rina backend");
	}

	static at::Tensor one(Tensors &ts, const char *what)
	{
		if (ts.size() != 1)
			fail(std::string(what) + " takes one tensor per call (got " +
			     std::to_string(ts.size()) + ")");
		return ts[0];
	}

	static void check_any(const at::Tensor &t, const char *what)
	{
		if (!t.device().is_cpu())
			fail(std::string(what) + " of a tensor on " +
			     t.device().str() +
			     ": the rina backend takes CPU tensors only; "
			     "copy it to the CPU (tensor.cpu()) first");
		if (t.layout() != at::kStrided)
			fail(std::string(what) + ": sparse tensors are not "
			     "supported by the rina backend");
	}

	static void check_reducible(const at::Tensor &t, const char *what)
	{
		check_any(t, what);
		if (!reducible(t.scalar_type()))
			fail(std::string(what) + " of " +
			     std::string(c10::toString(t.scalar_type())) +
			     " tensors is not supported by the rina backend "
			     "(float32, bfloat16, float16, float64, int32, "
			     "int64)");
	}

	/* how an allreduce of t with op is done; refuses what it cannot */
	static Path plan(at::ScalarType st, const ReduceOp &op,
			 enum rina_dtype *dt, enum rina_redop *rop,
			 const char *what)
	{
		bool native = rina_dtype_of(st, dt);

		switch (op) {
		case ReduceOp::SUM:
			*rop = RINA_SUM;
			return native ? Path::NATIVE : Path::GATHER;
		case ReduceOp::AVG:
			if (!is_float(st))
				fail(std::string(what) + ": AVG of " +
				     c10::toString(st) + " tensors is not "
				     "supported by the rina backend (use SUM "
				     "and divide)");
			*rop = RINA_AVG;
			return native ? Path::NATIVE : Path::GATHER;
		case ReduceOp::MAX:
			if (st == at::kInt) {
				*rop = RINA_MAX;
				return Path::NATIVE;
			}
			return native ? Path::KEYS : Path::GATHER;
		case ReduceOp::MIN:
			return native ? Path::KEYS : Path::GATHER;
		case ReduceOp::PRODUCT:
			return Path::GATHER;
		case ReduceOp::BAND:
		case ReduceOp::BOR:
		case ReduceOp::BXOR:
			if (is_float(st))
				fail(std::string(what) + ": " + op_name(op) +
				     " of floating-point tensors");
			return Path::GATHER;
		default:
			throw std::runtime_error(
				std::string(what) + " with ReduceOp." +
				op_name(op) +
				" is not supported by the rina backend");
		}
	}

	c10::intrusive_ptr<RinaWork> work(OpType type, Tensors outputs,
					  const char *what)
	{
		auto w = c10::make_intrusive<RinaWork>(rank_, type,
						       std::move(outputs));
		w->what = what;
		return w;
	}

	c10::intrusive_ptr<c10d::Work> issue(c10::intrusive_ptr<RinaWork> w,
					     const Start &start)
	{
		auto *holder = new c10::intrusive_ptr<RinaWork>(w);
		rina_request_t *req;
		int rc;

		{
			/* issue order is the order of the ring's calls */
			std::lock_guard<std::mutex> g(mu_);
			if (!comm_) {
				delete holder;
				fail(w->what + ": the process group was shut down");
			}
			rc = start(on_done, holder, &req);
		}
		if (rc) {
			delete holder;
			fail(w->what + ": " + rina_strerror(rc) + ": " +
			     rina_last_error());
		}
		return w;
	}

	c10::intrusive_ptr<c10d::Work> gather(c10::intrusive_ptr<RinaWork> w,
					      at::Tensor buf, at::Tensor flat)
	{
		size_t bytes = buf.numel() * buf.element_size();
		const void *src = buf.data_ptr();
		void *dst = flat.data_ptr();

		return issue(w, [=](rina_callback_t cb, void *a,
				    rina_request_t **r) {
			return rina_iallgather(src, dst, bytes, comm_, cb, a, r);
		});
	}

	c10::intrusive_ptr<c10d::Work> scatter(at::Tensor out, at::Tensor in,
					       const ReduceOp &op, OpType type)
	{
		enum rina_dtype dt;
		enum rina_redop rop;

		check_reducible(out, "reduce_scatter");
		Path path = plan(in.scalar_type(), op, &dt, &rop,
				 "reduce_scatter");
		at::Tensor buf = in.contiguous();
		size_t n = out.numel();
		auto w = work(type, {out}, "reduce_scatter");

		if (path == Path::GATHER) {
			at::Tensor g = at::empty({size_, size_ * (int64_t)n},
						 buf.options());
			int64_t off = rank_ * (int64_t)n;
			std::vector<int> ring_of = ring_of_;

			w->keep = {buf, g};
			w->post = [out, g, op, off, n, ring_of]() mutable {
				out.copy_(reduce_rows(g.narrow(1, off, n), op,
						      ring_of)
						  .view(out.sizes()));
			};
			return gather(w, buf, g);
		}
		at::Tensor src = in_ring_order(buf, n);
		at::Tensor res;
		if (path == Path::KEYS) {
			bool min = op == ReduceOp::MIN;
			auto st = out.scalar_type();

			src = to_keys(src, min);
			res = at::empty({(int64_t)n}, src.options());
			dt = RINA_INT32;
			rop = RINA_MAX;
			w->post = [out, res, st, min]() mutable {
				out.copy_(from_keys(res, st, min)
						  .view(out.sizes()));
			};
		} else {
			res = out.is_contiguous() ? out : at::empty_like(
				out, at::MemoryFormat::Contiguous);
			if (!res.is_same(out))
				w->post = [out, res]() mutable {
					out.copy_(res);
				};
		}
		w->keep = {src, res};
		const void *s = src.data_ptr();
		void *d = res.data_ptr();
		return issue(w, [=](rina_callback_t cb, void *a,
				    rina_request_t **r) {
			return rina_ireduce_scatter(s, d, n, dt, rop, comm_, cb,
						    a, r);
		});
	}

	/* ring_of: torch rank -> the job's rank, empty for the same */
	void set_ranks(const std::vector<int> &ring_of)
	{
		std::vector<bool> seen(size_);

		if (ring_of.empty()) {
			ring_of_.resize(size_);
			for (int r = 0; r < size_; r++)
				ring_of_[r] = r;
		} else if ((int)ring_of.size() != size_) {
			fail("ring_of maps " + std::to_string(ring_of.size()) +
			     " ranks, the process group has " +
			     std::to_string(size_));
		}
		for (int r = 0; r < size_; r++) {
			int j = ring_of_[r];

			if (j < 0 || j >= size_ || seen[j])
				fail("ring_of is not a permutation of 0.." +
				     std::to_string(size_ - 1));
			seen[j] = true;
			torch_of_[j] = r;
			identity_ = identity_ && j == r;
		}
	}

	/* reduce_scatter's blocks of n, torch's order -> the job's */
	at::Tensor in_ring_order(const at::Tensor &buf, int64_t n) const
	{
		Tensors blocks;

		if (identity_)
			return buf;
		for (int j = 0; j < size_; j++)
			blocks.push_back(buf.narrow(0, torch_of_[j] * n, n));
		return at::cat(blocks);
	}

	std::mutex mu_;
	rina_comm_t *comm_ = nullptr;
	std::vector<int> ring_of_;
	std::vector<int> torch_of_;
	bool identity_ = true;
	uint32_t timeout_ms_;
};

} // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
	m.doc() = "torch.distributed backend \"rina\" over librina";
	pybind11::class_<ProcessGroupRina, c10d::ProcessGroup,
			 c10::intrusive_ptr<ProcessGroupRina>>(m,
							       "ProcessGroupRina")
		.def(pybind11::init<int, int, const std::string &,
				    const std::string &, uint32_t,
				    const std::vector<int> &>(),
		     pybind11::arg("rank"), pybind11::arg("size"),
		     pybind11::arg("job_text"),
		     pybind11::arg("transport") = "auto",
		     pybind11::arg("timeout_ms") = 0,
		     pybind11::arg("ring_of") = std::vector<int>(),
		     pybind11::call_guard<pybind11::gil_scoped_release>())
		.def("shutdown", &ProcessGroupRina::shutdown,
		     pybind11::call_guard<pybind11::gil_scoped_release>())
		.def("_rina_handle", &ProcessGroupRina::handle)
		.def("_rina_timeout_ms", &ProcessGroupRina::timeout_ms);
}
