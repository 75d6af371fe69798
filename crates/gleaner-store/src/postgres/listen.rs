//! `LISTEN gleaner_registry` (SPEC §7: opt-outs reach every worker within a bound). The
//! trigger on `owner_requests` sends `NOTIFY gleaner_registry` with every change; a
//! process that listens wakes its waiting requests at once, so an opt-out stops a
//! request that is waiting out a long gap now instead of when the wait ends. The
//! version check before every reservation stays the guarantee: a notification can be
//! lost while the listening connection is down, and the listener counts one change on
//! every (re)connection for that reason.

use std::time::Duration;

use tokio::sync::watch;
use tokio_postgres::{AsyncMessage, Config, NoTls};

use super::Postgres;

/// How long the listener waits before connecting again after losing its connection.
const RECONNECT: Duration = Duration::from_secs(1);

impl Postgres {
    /// A counter that moves whenever the owners' registry may have changed (a
    /// notification, or the listener's reconnection). Starts the listener on the
    /// caller's runtime with the first subscription; it stops once every receiver is
    /// dropped.
    pub(crate) fn registry_changes(&self) -> watch::Receiver<u64> {
        let mut guard = self.registry_changes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(sender) = guard.as_ref().filter(|s| !s.is_closed()) {
            return sender.subscribe();
        }
        let (sender, receiver) = watch::channel(0);
        tokio::spawn(listen((*self.config).clone(), sender.clone()));
        *guard = Some(sender);
        receiver
    }
}

async fn listen(config: Config, changes: watch::Sender<u64>) {
    while !changes.is_closed() {
        if let Ok((client, mut connection)) = config.connect(NoTls).await {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            // The connection delivers notifications as it is polled; a task polls it and
            // forwards them until it ends.
            let pump = tokio::spawn(async move {
                while let Some(message) =
                    std::future::poll_fn(|cx| connection.poll_message(cx)).await
                {
                    match message {
                        Ok(AsyncMessage::Notification(_)) => {
                            if tx.send(()).is_err() {
                                return;
                            }
                        }
                        Ok(_) => {}
                        Err(_) => return,
                    }
                }
            });
            if client.batch_execute("LISTEN gleaner_registry").await.is_ok() {
                // Whatever changed while no one listened counts as a change.
                changes.send_modify(|n| *n += 1);
                loop {
                    tokio::select! {
                        got = rx.recv() => match got {
                            Some(()) => changes.send_modify(|n| *n += 1),
                            None => break,
                        },
                        () = changes.closed() => break,
                    }
                }
            }
            pump.abort();
        }
        if !changes.is_closed() {
            tokio::time::sleep(RECONNECT).await;
        }
    }
}
