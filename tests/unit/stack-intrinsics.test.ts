// The local stack resolves the template's intrinsic functions as CloudFormation does (scripts/stack/intrinsics.ts):
// a property under Fn::If takes the branch its condition picks, and AWS::NoValue leaves the property out.
import { describe, expect, it } from 'vitest';
import { type RefScope, resolveIntrinsics } from '../../scripts/stack/intrinsics.js';

const scope = (kmsKey: string): RefScope => ({
  refs: new Map([['Key', { ref: 'key-id', attributes: { Arn: 'arn:key' } }]]),
  pseudo: { 'AWS::Region': 'us-east-1' },
  conditions: {
    KeyNamed: { 'Fn::Not': [{ 'Fn::Equals': [kmsKey, ''] }] },
    Both: { 'Fn::And': [{ Condition: 'KeyNamed' }, { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] }] },
  },
});

const secret = (key: string) => ({
  Name: 'vault',
  KmsKeyId: { 'Fn::If': ['KeyNamed', key, { Ref: 'AWS::NoValue' }] },
  Tags: [
    { 'Fn::If': ['Both', { Key: 'kms', Value: { 'Fn::GetAtt': ['Key', 'Arn'] } }, { Ref: 'AWS::NoValue' }] },
  ],
});

describe('resolveIntrinsics', () => {
  it('takes the branch the condition picks', () => {
    expect(resolveIntrinsics(secret('arn:aws:kms:key'), scope('arn:aws:kms:key'))).toEqual({
      Name: 'vault',
      KmsKeyId: 'arn:aws:kms:key',
      Tags: [{ Key: 'kms', Value: 'arn:key' }],
    });
  });

  it('leaves out a property (or a list item) that resolves to AWS::NoValue', () => {
    expect(resolveIntrinsics(secret(''), scope(''))).toEqual({ Name: 'vault', Tags: [] });
  });

  it('refuses an unknown condition or condition function', () => {
    expect(() => resolveIntrinsics({ 'Fn::If': ['Missing', 1, 2] }, scope(''))).toThrow(
      'unknown condition Missing',
    );
    expect(() =>
      resolveIntrinsics(
        { 'Fn::If': ['Odd', 1, 2] },
        { ...scope(''), conditions: { Odd: { 'Fn::Contains': [] } } },
      ),
    ).toThrow('condition function Fn::Contains is not supported locally');
  });
});
