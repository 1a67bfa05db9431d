import { Type } from 'typebox';

/** A payment, as `payment.received` and `payment.failed` carry it. */
export const PaymentSchema = Type.Object(
  {
    id: Type.String({ examples: ['pay_7cQp2ZxW1bX9sT2uV7wY3cE5'] }),
    order_id: Type.String(),
    amount: Type.Integer({ description: 'Minor units.' }),
    currency: Type.String(),
    status: Type.String({ enum: ['pending', 'succeeded', 'failed', 'refunded'] }),
    method: Type.String(),
    provider: Type.String(),
    failure_code: Type.Union([Type.String(), Type.Null()]),
    failure_message: Type.Union([Type.String(), Type.Null()]),
    created: Type.String({ format: 'date-time' }),
    updated: Type.String({ format: 'date-time' }),
  },
  {
    examples: [
      {
        id: 'pay_AbKpioPgdeCpGiGqNmKb9zFt',
        order_id: 'ord_s11dd1TIuPzPnu7E29AlKVTk',
        amount: 16408,
        currency: 'USD',
        status: 'succeeded',
        method: 'pm_card_visa',
        provider: 'sandbox',
        failure_code: null,
        failure_message: null,
        created: '2026-11-21T10:15:00.981Z',
        updated: '2026-11-21T10:15:01.372Z',
      },
    ],
  },
);
