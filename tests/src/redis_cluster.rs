//! A real Redis Cluster for tests: six `redis-server --cluster-enabled yes`
//! processes on loopback (three masters, three replicas) joined by
//! `redis-cli --cluster create`; with `REVU_TEST_REDIS=docker`, the same
//! six nodes and `redis-cli` in containers on the host's network. Never a
//! silent skip: without `redis-server` and `redis-cli` (or the containers)
//! the test fails and says how to get them.
//!
//! Each node gets two ports that were free a moment ago, one for clients
//! and one for the cluster bus (`--cluster-port`), so no node depends on
//! `port + 10000` being free.

use crate::redis_server::RedisServer;
use std::process::Command;
use std::time::{Duration, Instant};

/// Nodes: three masters, each with one replica.
const NODES: usize = 6;
/// How long a silent master takes to be failed over: short for tests.
const NODE_TIMEOUT_MS: &str = "1000";
/// Tries at starting one node before giving up.
const NODE_TRIES: usize = 5;

const HOW_TO_GET_ONE: &str = "the Redis Cluster tests need `redis-server` and `redis-cli` \
     (7.0 or later) on PATH: `apt-get install -y redis-server redis-tools`; or run them in \
     containers with REVU_TEST_REDIS=docker and `--features revu-tests/docker`";

/// A six-node Redis Cluster on loopback, with a key prefix for the test.
#[derive(Debug)]
pub struct RedisCluster {
    pub nodes: Vec<RedisServer>,
    pub prefix: String,
}

/// One line of `CLUSTER NODES`.
#[derive(Debug, Clone)]
pub struct NodeLine {
    pub port: u16,
    pub master: bool,
    pub failed: bool,
    /// Slot ranges it serves (masters only), inclusive.
    pub slots: Vec<(u16, u16)>,
}

impl RedisCluster {
    /// Starts the nodes (local processes, or containers with
    /// `REVU_TEST_REDIS=docker`), creates the cluster and waits until every
    /// node says it is whole. Panics with instructions if it cannot.
    pub fn start() -> RedisCluster {
        let docker = crate::redis_server::in_docker();
        if !docker {
            let cli = Command::new("redis-cli").arg("--version").output();
            if !cli.is_ok_and(|o| o.status.success()) {
                panic!("{HOW_TO_GET_ONE}");
            }
        }
        let prefix = format!("revu-test-{}", crate::redis_server::uuid_like());
        let nodes: Vec<RedisServer> = (0..NODES).map(|_| start_node(docker, &prefix)).collect();
        let mut create = vec!["--cluster".to_owned(), "create".to_owned()];
        create.extend(nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)));
        create.extend(["--cluster-replicas", "1", "--cluster-yes"].map(str::to_owned));
        let created = if docker {
            crate::redis_docker::redis_cli(create)
        } else {
            Command::new("redis-cli")
                .args(&create)
                .output()
                .map_err(|e| e.to_string())
                .and_then(|out| {
                    let text = format!(
                        "{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    );
                    if out.status.success() {
                        Ok(text)
                    } else {
                        Err(text)
                    }
                })
        };
        if let Err(why) = created {
            panic!("redis-cli --cluster create failed: {why}");
        }
        let cluster = RedisCluster { nodes, prefix };
        cluster.wait_whole(Duration::from_secs(30));
        cluster
    }

    /// The seed nodes, as `--redis` takes them with `--redis-cluster`.
    pub fn seeds(&self) -> String {
        self.nodes
            .iter()
            .map(|n| format!("redis://127.0.0.1:{}", n.port))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// A handle naming the cluster (its seeds and the test's prefix) for
    /// a fleet of revu processes; it owns no process.
    pub fn handle(&self) -> RedisServer {
        RedisServer::external(&self.seeds(), &self.prefix)
    }

    /// Runs `cmd` on the node at `port` (`None` when it does not answer).
    pub fn query_node<T: redis::FromRedisValue>(&self, port: u16, cmd: &redis::Cmd) -> Option<T> {
        let client = redis::Client::open(format!("redis://127.0.0.1:{port}")).ok()?;
        let mut conn = client
            .get_connection_with_timeout(Duration::from_millis(500))
            .ok()?;
        cmd.query(&mut conn).ok()
    }

    /// The nodes that still run.
    fn running_ports(&mut self) -> Vec<u16> {
        self.nodes
            .iter_mut()
            .filter_map(|n| {
                let port = n.port;
                n.running().then_some(port)
            })
            .collect()
    }

    /// `CLUSTER NODES` as the node at `port` sees it.
    pub fn topology(&self, port: u16) -> Vec<NodeLine> {
        let text: String = self
            .query_node(port, redis::cmd("CLUSTER").arg("NODES"))
            .unwrap_or_default();
        text.lines().filter_map(parse_node_line).collect()
    }

    /// The slot of `key` (what `CLUSTER KEYSLOT` says).
    pub fn slot_of(&self, key: &str) -> u16 {
        let port = self.nodes.first().map_or(0, |n| n.port);
        self.nodes
            .iter()
            .find_map(|n| {
                self.query_node::<u16>(n.port, redis::cmd("CLUSTER").arg("KEYSLOT").arg(key))
            })
            .unwrap_or_else(|| panic!("no node answers CLUSTER KEYSLOT (first at {port})"))
    }

    /// The port of the master that serves `slot`, as a running node sees it.
    pub fn master_of(&mut self, slot: u16) -> u16 {
        for port in self.running_ports() {
            let found = self.topology(port).into_iter().find(|n| {
                n.master && !n.failed && n.slots.iter().any(|(a, b)| (*a..=*b).contains(&slot))
            });
            if let Some(node) = found {
                return node.port;
            }
        }
        panic!("no running node knows a master for slot {slot}")
    }

    /// Kills the node at `port` (SIGKILL, or its container removed).
    pub fn kill(&mut self, port: u16) {
        let node = self
            .nodes
            .iter_mut()
            .find(|n| n.port == port)
            .unwrap_or_else(|| panic!("no node of ours on port {port}"));
        node.kill();
    }

    /// Waits until every running node says the cluster is ok with all
    /// 16384 slots served, and every master it knows of has a replica or
    /// has taken over from a dead one. Panics after `within`.
    pub fn wait_whole(&self, within: Duration) {
        let started = Instant::now();
        loop {
            let states: Vec<String> = self
                .nodes
                .iter()
                .filter(|n| n.started())
                .map(|n| {
                    self.query_node::<String>(n.port, redis::cmd("CLUSTER").arg("INFO"))
                        .unwrap_or_default()
                })
                .collect();
            let answering: Vec<&String> = states.iter().filter(|s| !s.is_empty()).collect();
            let ok = !answering.is_empty()
                && answering.iter().all(|info| {
                    info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384")
                });
            if ok {
                return;
            }
            assert!(
                started.elapsed() < within,
                "the Redis Cluster was not whole within {within:?}: {states:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until a running node other than `dead` serves `slot` as its
    /// master and the cluster is whole again. Panics after `within`.
    pub fn wait_failover(&mut self, slot: u16, dead: u16, within: Duration) -> u16 {
        let started = Instant::now();
        loop {
            let mut promoted = None;
            for port in self.running_ports() {
                if port == dead {
                    continue;
                }
                let owner = self.topology(port).into_iter().find(|n| {
                    n.master && !n.failed && n.slots.iter().any(|(a, b)| (*a..=*b).contains(&slot))
                });
                if let Some(owner) = owner.filter(|o| o.port != dead) {
                    promoted = Some(owner.port);
                    break;
                }
            }
            if let Some(port) = promoted {
                self.wait_whole(within.saturating_sub(started.elapsed()));
                return port;
            }
            assert!(
                started.elapsed() < within,
                "no replica took over slot {slot} from port {dead} within {within:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// One node: a local `redis-server`, or one in a container on the host's
/// network; each on a client port and a bus port that were free a moment
/// ago, tried again on others when it does not come up.
fn start_node(docker: bool, prefix: &str) -> RedisServer {
    let mut last = String::new();
    for _ in 0..NODE_TRIES {
        let bus = crate::redis_server::probe_port().to_string();
        let extra = [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            NODE_TIMEOUT_MS,
            "--cluster-port",
            bus.as_str(),
            // Replicas answer as soon as they have the data set.
            "--repl-diskless-sync",
            "yes",
            "--repl-diskless-sync-delay",
            "0",
        ];
        match RedisServer::try_start_with(&extra, prefix, docker) {
            Ok(node) => return node,
            Err(why) => last = why,
        }
    }
    panic!(
        "no cluster node of ours came up in {NODE_TRIES} tries: {last}{}",
        crate::redis_server::docker_hint(docker)
    )
}

/// `id host:port@bus flags master ping pong epoch state slots…`
fn parse_node_line(line: &str) -> Option<NodeLine> {
    let parts: Vec<&str> = line.split_whitespace().collect();
    let addr = parts.get(1)?;
    let port = addr.split('@').next()?.rsplit(':').next()?.parse().ok()?;
    let flags = parts.get(2)?;
    let slots = parts
        .iter()
        .skip(8)
        .filter(|s| !s.starts_with('['))
        .filter_map(|s| match s.split_once('-') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => {
                let one = s.parse().ok()?;
                Some((one, one))
            }
        })
        .collect();
    Some(NodeLine {
        port,
        master: flags.contains("master"),
        failed: flags.contains("fail"),
        slots,
    })
}

#[cfg(test)]
mod tests {
    use super::parse_node_line;

    #[test]
    fn node_lines_parse() {
        let line =
            "07c3 127.0.0.1:30004@31004 myself,master - 0 0 1 connected 0-5460 6000 [5461->-abc]";
        let n = parse_node_line(line).unwrap_or_else(|| panic!("unparsed"));
        assert_eq!(n.port, 30004);
        assert!(n.master && !n.failed);
        assert_eq!(n.slots, vec![(0, 5460), (6000, 6000)]);
        let failed = "e7d1 127.0.0.1:30001@31001 master,fail - 1 1 2 disconnected";
        let n = parse_node_line(failed).unwrap_or_else(|| panic!("unparsed"));
        assert!(n.failed && n.slots.is_empty());
    }
}
