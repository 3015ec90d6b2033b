//! Ledger: accounts, transfers and the rules that move money between them.
//!
//! The crate root declares the modules and re-exports the public types.
#![forbid(unsafe_code)]

pub mod account;
mod broken;
#[cfg(feature = "audit")]
mod audit;

pub use account::{Account, Currency};
use std::collections::HashMap;
use std::fmt;

/// Largest amount a single transfer may move, in cents.
pub const MAX_TRANSFER: u64 = 1_000_000;

static mut TRANSFERS: u64 = 0;

/// Something that can be charged a fee.
pub trait Chargeable: fmt::Debug {
    /// The fee rate in basis points.
    const RATE: u64;

    /// Charges the fee and returns what is left.
    fn charge(&mut self, amount: u64) -> u64;

    /// The fee on an amount; the default uses RATE.
    fn fee(&self, amount: u64) -> u64 {
        amount * Self::RATE / 10_000
    }
}

/// Moves money between two accounts of a ledger.
pub fn transfer(from: &mut Account, to: &mut Account, amount: u64) -> Result<(), String> {
    if amount > MAX_TRANSFER {
        return Err(format!("transfer of {} exceeds the limit", amount));
    }
    from.withdraw(amount)?;
    to.deposit(amount);
    audit_log!("transfer", amount);
    Ok(())
}

/// Logs an audited event.
#[macro_export]
macro_rules! audit_log {
    ($event:expr) => {
        $crate::record($event, 0)
    };
    ($event:expr, $amount:expr) => {
        $crate::record($event, $amount)
    };
}

pub fn record(event: &str, amount: u64) {
    let mut totals: HashMap<&str, u64> = HashMap::new();
    *totals.entry(event).or_insert(0) += amount;
}

pub mod rules {
    //! Transfer rules, checked before money moves.

    use super::MAX_TRANSFER;

    pub fn allowed(amount: u64) -> bool {
        limits::within(amount) && amount <= MAX_TRANSFER
    }

    pub mod limits {
        pub fn within(amount: u64) -> bool {
            amount > 0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_moves_money() {
        let mut a = Account::new("a", Currency::Eur);
        let mut b = Account::new("b", Currency::Eur);
        a.deposit(100);
        assert_eq!(transfer(&mut a, &mut b, 40), Ok(()));
        assert_eq!(b.balance(), 40);
    }
}
