#include "tests/e2e/net_fault_workload.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace railtune::testing::netfault {
namespace {

constexpr std::byte kGuard{0xEE};  // fills receive slack: a write past the message shows up
void* const kOptionalMarker = reinterpret_cast<void*>(NCCL_NET_OPTIONAL_RECV_COMPLETION);

// Sizes that matter to a chunking transport: empty, small (one header + data), medium, and large
// enough to span several 512 KiB chunks and therefore several streams.
size_t pickSize(std::mt19937& random) {
  const unsigned bucket = random() % 100;
  if (bucket < 8) return 0;
  if (bucket < 58) return 1 + random() % 4096;
  if (bucket < 90) return 4097 + random() % (256 * 1024);
  return (256 * 1024) + random() % (1536 * 1024);
}

PlannedReceive planReceive(std::mt19937& random, int maxRecvs, std::vector<int>& tagPool) {
  PlannedReceive receive;
  const int n = random() % 5 < 3 ? 1 : 2 + static_cast<int>(random() % static_cast<unsigned>(maxRecvs - 1));
  std::shuffle(tagPool.begin(), tagPool.end(), random);  // distinct tags within one receive, as NCCL's ranks
  for (int i = 0; i < n; ++i) {
    PlannedMessage message;
    message.tag = tagPool[static_cast<size_t>(i)];
    message.size = pickSize(random);
    message.capacity = message.size + (random() % 3 == 0 ? random() % 100 : 0);
    message.seed = static_cast<uint32_t>(random());
    receive.buffers.push_back(message);
  }
  for (size_t i = 0; i < receive.buffers.size(); ++i) receive.sendOrder.push_back(i);
  std::shuffle(receive.sendOrder.begin(), receive.sendOrder.end(), random);
  receive.optionalCompletion = n == 1 && random() % 2 == 0;
  receive.flush = random() % 4 == 0;
  return receive;
}

std::string describe(const char* call, ncclResult_t result, size_t index) {
  return std::string(call) + " #" + std::to_string(index) + " returned ncclResult_t " + std::to_string(result);
}

}  // namespace

size_t Plan::sendBytes() const {
  size_t total = 0;
  for (const PlannedReceive& r : receives) {
    for (const PlannedMessage& m : r.buffers) total += m.size;
  }
  return total;
}

size_t Plan::receiveBytes() const {
  size_t total = 0;
  for (const PlannedReceive& r : receives) {
    for (const PlannedMessage& m : r.buffers) total += m.capacity;
  }
  return total;
}

Plan makePlan(uint32_t seed, int receives, int maxRecvs) {
  std::mt19937 random(seed);
  std::vector<int> tagPool(4096);
  std::iota(tagPool.begin(), tagPool.end(), 0);
  Plan plan;
  for (int i = 0; i < receives; ++i) plan.receives.push_back(planReceive(random, std::max(maxRecvs, 2), tagPool));
  return plan;
}

void fillMessage(std::span<std::byte> bytes, uint32_t seed) {
  uint32_t x = seed | 1u;
  for (std::byte& b : bytes) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<std::byte>(x & 0xff);
  }
}

std::string checkMessage(std::span<const std::byte> bytes, uint32_t seed) {
  uint32_t x = seed | 1u;
  for (size_t i = 0; i < bytes.size(); ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    if (bytes[i] != static_cast<std::byte>(x & 0xff)) return "byte " + std::to_string(i) + " differs";
  }
  return "";
}

namespace {

// The sender: one registered arena holding every message, sent in plan order.
class Sender {
 public:
  Sender(emu::NetDriver& net, void* comm, const Plan& plan) : net_(net), comm_(comm) {
    for (const PlannedReceive& r : plan.receives) {
      for (size_t index : r.sendOrder) messages_.push_back(r.buffers[index]);
    }
    arena_.resize(std::max<size_t>(plan.sendBytes(), 1));
    size_t offset = 0;
    for (const PlannedMessage& m : messages_) {
      offsets_.push_back(offset);
      fillMessage(std::span<std::byte>(arena_.data() + offset, m.size), m.seed);
      offset += m.size;
    }
    requests_.resize(messages_.size());
  }

  std::string run(size_t inFlight, Millis limit) {
    ncclResult_t result = net_.regMr(comm_, arena_.data(), arena_.size(), NCCL_PTR_HOST, &region_);
    if (result != ncclSuccess) return describe("regMr", result, 0);
    std::string failure;
    const bool finished = pollUntil([&] { return step(inFlight, failure); }, limit);
    result = net_.deregMr(comm_, region_);
    if (failure.empty() && !finished) failure = "sends still pending at the deadline";
    if (failure.empty() && result != ncclSuccess) failure = describe("deregMr", result, 0);
    return failure;
  }

 private:
  // Posts what the window allows, then tests the oldest send. true: all done or failed.
  bool step(size_t inFlight, std::string& failure) {
    while (posted_ < messages_.size() && posted_ - done_ < inFlight) {
      void* request = nullptr;
      const PlannedMessage& m = messages_[posted_];
      const ncclResult_t result =
          net_.isend(comm_, arena_.data() + offsets_[posted_], m.size, m.tag, region_, nullptr, &request);
      if (result != ncclSuccess) failure = describe("isend", result, posted_);
      if (result != ncclSuccess) return true;
      if (request == nullptr) break;  // the plugin asks NCCL to retry later
      requests_[posted_++] = request;
    }
    if (done_ == posted_) return done_ == messages_.size();
    int done = 0;
    const ncclResult_t result = net_.test(requests_[done_], &done, nullptr);
    if (result != ncclSuccess) failure = describe("test of send", result, done_);
    if (result != ncclSuccess) return true;
    if (done != 0) ++done_;
    return done_ == messages_.size();
  }

  emu::NetDriver& net_;
  void* comm_;
  std::vector<PlannedMessage> messages_;
  std::vector<size_t> offsets_;
  std::vector<std::byte> arena_;
  std::vector<void*> requests_;
  void* region_ = nullptr;
  size_t posted_ = 0, done_ = 0;
};

}  // namespace

std::string runSender(emu::NetDriver& net, void* sendComm, const Plan& plan, size_t inFlight, Millis limit) {
  Sender sender(net, sendComm, plan);
  return sender.run(inFlight, limit);
}

namespace {

// The receiver: one registered arena with every buffer at its capacity, slack filled with a guard.
class Receiver {
 public:
  Receiver(emu::NetDriver& net, void* comm, const Plan& plan) : net_(net), comm_(comm), plan_(plan) {
    arena_.assign(std::max<size_t>(plan.receiveBytes(), 1), kGuard);
    size_t offset = 0;
    for (const PlannedReceive& r : plan.receives) {
      offsets_.push_back(offset);
      for (const PlannedMessage& m : r.buffers) offset += m.capacity;
    }
    requests_.resize(plan.receives.size());
  }

  std::string run(size_t inFlight, Millis limit) {
    ncclResult_t result = net_.regMr(comm_, arena_.data(), arena_.size(), NCCL_PTR_HOST, &region_);
    if (result != ncclSuccess) return describe("regMr", result, 0);
    std::string failure;
    const bool finished = pollUntil([&] { return step(inFlight, failure); }, limit);
    result = net_.deregMr(comm_, region_);
    if (failure.empty() && !finished) {
      failure = "receives still pending at the deadline (" + std::to_string(done_) + " of " +
                std::to_string(plan_.receives.size()) + " done)";
    }
    if (failure.empty() && result != ncclSuccess) failure = describe("deregMr", result, 0);
    return failure;
  }

 private:
  bool step(size_t inFlight, std::string& failure) {
    while (posted_ < plan_.receives.size() && posted_ - done_ < inFlight) {
      if (!post(failure)) return !failure.empty();
    }
    if (done_ == posted_) return done_ == plan_.receives.size();
    int done = 0;
    int sizes[NCCL_NET_MAX_REQUESTS] = {};
    const ncclResult_t result = net_.test(requests_[done_], &done, sizes);
    if (result != ncclSuccess) failure = describe("test of receive", result, done_);
    if (result != ncclSuccess) return true;
    if (done == 0) return false;
    failure = complete(sizes);
    ++done_;
    return !failure.empty() || done_ == plan_.receives.size();
  }

  // false: not posted (the plugin asked for a retry, or failed: then `failure` says why).
  bool post(std::string& failure) {
    const PlannedReceive& r = plan_.receives[posted_];
    void* data[NCCL_NET_MAX_REQUESTS];
    size_t sizes[NCCL_NET_MAX_REQUESTS];
    int tags[NCCL_NET_MAX_REQUESTS];
    void* regions[NCCL_NET_MAX_REQUESTS];
    pointers(posted_, data);
    for (size_t i = 0; i < r.buffers.size(); ++i) {
      sizes[i] = r.buffers[i].capacity;
      tags[i] = r.buffers[i].tag;
      regions[i] = region_;
    }
    void* request = r.optionalCompletion ? kOptionalMarker : nullptr;
    const int n = static_cast<int>(r.buffers.size());
    const ncclResult_t result = net_.irecv(comm_, n, data, sizes, tags, regions, nullptr, &request);
    if (result != ncclSuccess) failure = describe("irecv", result, posted_);
    if (request == kOptionalMarker) failure = "irecv #" + std::to_string(posted_) + " left NCCL's 0x1 marker";
    if (result != ncclSuccess || request == kOptionalMarker || request == nullptr) return false;
    requests_[posted_++] = request;
    return true;
  }

  void pointers(size_t receive, void** data) {
    size_t offset = offsets_[receive];
    for (size_t i = 0; i < plan_.receives[receive].buffers.size(); ++i) {
      data[i] = arena_.data() + offset;
      offset += plan_.receives[receive].buffers[i].capacity;
    }
  }

  // Checks sizes, bytes and the untouched slack of receive done_; flushes and consumes it as NCCL would.
  std::string complete(const int* sizes) {
    const PlannedReceive& r = plan_.receives[done_];
    const std::string where = "receive #" + std::to_string(done_) + " buffer ";
    void* data[NCCL_NET_MAX_REQUESTS];
    pointers(done_, data);
    for (size_t i = 0; i < r.buffers.size(); ++i) {
      const PlannedMessage& m = r.buffers[i];
      if (static_cast<size_t>(sizes[i]) != m.size) {
        return where + std::to_string(i) + ": test reported " + std::to_string(sizes[i]) + " bytes, sent " +
               std::to_string(m.size);
      }
      const auto* bytes = static_cast<const std::byte*>(data[i]);
      const std::string wrong = checkMessage(std::span<const std::byte>(bytes, m.size), m.seed);
      if (!wrong.empty()) return where + std::to_string(i) + " (tag " + std::to_string(m.tag) + "): " + wrong;
      for (size_t k = m.size; k < m.capacity; ++k) {
        if (bytes[k] != kGuard)
          return where + std::to_string(i) + ": written past the message at byte " + std::to_string(k);
      }
    }
    if (r.flush) {
      const std::string failed = flush(r, data, sizes);
      if (!failed.empty()) return failed;
    }
    if (net_.hasIrecvConsumed()) {
      const ncclResult_t result = net_.irecvConsumed(comm_, static_cast<int>(r.buffers.size()), requests_[done_]);
      if (result != ncclSuccess) return describe("irecvConsumed", result, done_);
    }
    return "";
  }

  std::string flush(const PlannedReceive& r, void** data, const int* received) {
    int sizes[NCCL_NET_MAX_REQUESTS];
    void* regions[NCCL_NET_MAX_REQUESTS];
    for (size_t i = 0; i < r.buffers.size(); ++i) {
      sizes[i] = received[i];
      regions[i] = region_;
    }
    void* request = nullptr;
    const ncclResult_t result = net_.iflush(comm_, static_cast<int>(r.buffers.size()), data, sizes, regions, &request);
    if (result != ncclSuccess || request == nullptr) return describe("iflush", result, done_) + " (or no request)";
    const TestOutcome outcome = testUntil(net_, request, Millis(5000));
    if (outcome.result != ncclSuccess || !outcome.done) return describe("test of iflush", outcome.result, done_);
    return "";
  }

  emu::NetDriver& net_;
  void* comm_;
  const Plan& plan_;
  std::vector<std::byte> arena_;
  std::vector<size_t> offsets_;
  std::vector<void*> requests_;
  void* region_ = nullptr;
  size_t posted_ = 0, done_ = 0;
};

}  // namespace

std::string runReceiver(emu::NetDriver& net, void* recvComm, const Plan& plan, size_t inFlight, Millis limit) {
  Receiver receiver(net, recvComm, plan);
  return receiver.run(inFlight, limit);
}

}  // namespace railtune::testing::netfault
